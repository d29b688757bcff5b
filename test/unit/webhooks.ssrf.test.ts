import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockedReason, checkWebhookUrl, guardedLookup } from '../../src/modules/webhooks/webhooks.ssrf.js';

describe('webhook address guard: blockedReason', () => {
  const cases: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['10.0.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.10.20', true],
    ['169.254.169.254', true], // cloud metadata
    ['100.100.100.200', true], // Alibaba metadata (shared address space)
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['198.18.0.1', true],
    ['8.8.8.8', false],
    ['93.184.215.14', false],
    ['::1', true],
    ['::', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.1.2.3', true],
    ['::ffff:8.8.8.8', false],
    ['::127.0.0.1', true],
    ['fc00::1', true],
    ['fd00:ec2::254', true], // AWS metadata over IPv6
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['ff02::1', true],
    ['2001:db8::1', true],
    ['64:ff9b::7f00:1', true], // NAT64 of 127.0.0.1
    ['64:ff9b::808:808', false], // NAT64 of 8.8.8.8
    ['2002:a00:1::1', true], // 6to4 of 10.0.0.1
    ['2002:808:808::1', false],
    ['2606:4700:4700::1111', false],
    ['2001:4860:4860::8888', false],
  ];
  for (const [ip, blocked] of cases) {
    it(`${ip} is ${blocked ? 'refused' : 'allowed'}`, () => {
      assert.equal(blockedReason(ip) !== null, blocked, String(blockedReason(ip)));
    });
  }
  it('refuses what is not an address', () => {
    assert.notEqual(blockedReason('example.com'), null);
  });
});

describe('webhook address guard: checkWebhookUrl', () => {
  const publicDns = async () => ['93.184.215.14'];
  const privateDns = async () => ['93.184.215.14', '10.0.0.8'];
  const cases: [string, boolean, ((h: string) => Promise<string[]>)?][] = [
    ['https://hooks.example.com/in', true, publicDns],
    ['http://hooks.example.com:8080/in?x=1', true, publicDns],
    ['https://hooks.example.com/in', false, privateDns], // one private answer is enough to refuse
    ['https://nowhere.example/in', false, async () => []],
    [
      'https://nowhere.example/in',
      false,
      async () => {
        throw new Error('ENOTFOUND');
      },
    ],
    ['http://localhost/in', false],
    ['http://LOCALHOST./in', false],
    ['http://x.localhost/in', false],
    ['http://127.1/in', false],
    ['http://0x7f.1/in', false],
    ['http://017700000001/in', false],
    ['http://[::1]:8080/in', false],
    ['http://[::ffff:169.254.169.254]/', false],
    ['http://93.184.215.14/in', true],
    ['ftp://hooks.example.com/in', false, publicDns],
    ['file:///etc/passwd', false],
    ['data:text/plain,hi', false],
    ['ws://hooks.example.com/in', false, publicDns],
    ['https://user:secret@hooks.example.com/in', false, publicDns],
    ['not a url', false],
  ];
  for (const [url, ok, resolve] of cases) {
    it(`${url} is ${ok ? 'accepted' : 'refused'}`, async () => {
      const problem = await checkWebhookUrl(url, { allowPrivate: false, resolve: resolve ?? publicDns });
      assert.equal(problem === null, ok, String(problem));
    });
  }
  it('WEBHOOK_ALLOW_PRIVATE lets private targets through, but never other schemes', async () => {
    assert.equal(await checkWebhookUrl('http://127.0.0.1:9000/in', { allowPrivate: true }), null);
    assert.notEqual(await checkWebhookUrl('ftp://127.0.0.1/in', { allowPrivate: true }), null);
  });
});

describe('webhook address guard: lookup at connect time', () => {
  const lookup = (addresses: string[], all: boolean) =>
    new Promise<{ err: Error | null; result: unknown }>((resolve) =>
      guardedLookup(async () => addresses)('hooks.example.com', { all }, (err, address, family) =>
        resolve({ err, result: all ? address : [address, family] }),
      ),
    );

  it('passes public addresses on, in both callback forms', async () => {
    assert.deepEqual(await lookup(['93.184.215.14', '2606:4700::1'], true), {
      err: null,
      result: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
    assert.deepEqual(await lookup(['2606:4700::1'], false), { err: null, result: ['2606:4700::1', 6] });
  });

  it('fails the connection when any address is private, or none came back', async () => {
    assert.match(
      String((await lookup(['93.184.215.14', '169.254.169.254'], true)).err),
      /169\.254\.169\.254/,
    );
    assert.match(String((await lookup([], false)).err), /did not resolve/);
  });
});
