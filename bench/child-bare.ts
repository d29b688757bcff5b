// The ceiling: a bare Fastify route answering a small JSON object, same machine, same Node.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ data: { id: 1, name: 'ceiling' } }));
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
console.log(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
