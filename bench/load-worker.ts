// Runs autocannon in its own process (so the load generator does not share the server's event
// loop) and prints the result as one JSON line. `{{n}}` in the body becomes a request counter,
// so each request can carry a unique key; `{{n%K}}` the counter modulo K (one of K records).
// Several URLs are taken round-robin per connection (several Vouch processes behind one client).
// With `stripeSecret`, each body is signed as Stripe signs events (`Stripe-Signature`, by the
// library's own test helper), so processor endpoints can be loaded with unique, valid events.
import autocannon from 'autocannon';
import Stripe from 'stripe';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  url: string | string[];
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
  stripeSecret?: string;
};

const stripe = options.stripeSecret ? new Stripe('sk_bench_unused') : undefined;

let n = 0;
const instance: any = autocannon({
  // autocannon takes several URLs too (its types say one).
  url: options.url as string,
  connections: options.connections,
  duration: options.duration,
  requests: [
    {
      method: options.method as 'GET',
      headers: options.headers,
      setupRequest: (request: any) => {
        if (options.body === undefined) return request;
        n += 1;
        const body = options.body
          .replaceAll('{{n}}', `${process.pid}-${n}`)
          .replace(/\{\{n%(\d+)\}\}/g, (_, k: string) => String(n % Number(k)));
        if (!stripe || !options.stripeSecret) return { ...request, body };
        const signature = stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret: options.stripeSecret,
        });
        return { ...request, body, headers: { ...request.headers, 'stripe-signature': signature } };
      },
    },
  ],
});
instance.on('done', (result: autocannon.Result) => {
  console.log(
    JSON.stringify({
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      total: result.requests.total,
    }),
  );
});
