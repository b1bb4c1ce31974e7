// A request sent exactly as given: node's fetch chooses Host and Content-Length itself and would
// not let a test send a byte-exact body or a forged Host header.
import http from 'node:http';

export interface RawResponse {
  status: number;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: any;
}

export function rawRequest(baseUrl: string, req: { method: string; path: string; headers: Record<string, string>; body?: Buffer }): Promise<RawResponse> {
  const u = new URL(baseUrl);
  const headers = req.body ? { ...req.headers, 'content-length': String(req.body.length) } : req.headers;
  return new Promise((resolve, reject) => {
    const r = http.request({ host: u.hostname, port: u.port, method: req.method, path: req.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    r.on('error', reject);
    r.end(req.body);
  });
}
