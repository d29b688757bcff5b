// A reference for GET /clients/{id}: a bare Fastify route that does two SQLite reads per
// request (the auth epoch and the row), straight on better-sqlite3, with no auth, scopes, rate
// limit, validation or logging — a naive token check plus the read. The service shares one
// epoch read among the requests that arrive together, which is how it overtakes this.
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

const db = new SQLite(process.env.DATABASE_URL!);
db.pragma('journal_mode = WAL');
const accountId = Number(process.env.ACCOUNT_ID);
const epoch = db.prepare('select value from auth_epoch');
const client = db.prepare('select * from clients where account_id = ? and id = ?');

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/clients/:id', async (req, reply) => {
  epoch.all();
  const [row] = client.all([accountId, Number(req.params.id)]);
  reply.type('application/json; charset=utf-8').serializer(JSON.stringify);
  return { data: row };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
console.log(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
