import http from 'node:http';

/** POST `payload` with `Expect: 100-continue`, sending the body only once the server says 100; resolves with the status. */
export function postAfterContinue(url: string, headers: Readonly<Record<string, string | number>>, payload: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'Content-Length': payload.length, Expect: '100-continue' } });
    req.on('continue', () => req.end(payload));
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}
