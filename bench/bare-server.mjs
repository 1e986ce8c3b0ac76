// The yardstick: a bare node:http server answering a small JSON body. Vouch's figures are
// reported as ratios of this server's, measured in the same run on the same machine.
import { createServer } from 'node:http';

const body = JSON.stringify({ data: { program: { id: 1, name: 'Bare', type: 'Affiliate' } }, status: 1 });
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
