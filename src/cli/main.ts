/** `npm run cli -- <command>` against a running service: bootstrap, deposit, simulate-deposit, listen (USAGE below). */
import { parseArgs } from 'node:util';
import { ServiceClient, bootstrap } from './client.ts';
import { listen } from './listen.ts';
import { simulatedDepositorName } from './simulate.ts';

const USAGE = `Usage:
  npm run cli -- bootstrap [--url URL] [--email E] [--password P] [--name N]
  npm run cli -- deposit --token <notificationToken> --name <depositorName> --amount <won> [--id <notificationId>] [--url URL]
  npm run cli -- simulate-deposit --token <notificationToken> --name <depositorName> --amount <won> [--bracket "(123)"] [--bank SHINHAN | --truncate 7]
  npm run cli -- listen --token <API key or session token> [--forward-to http://localhost:3000/webhooks] [--url URL]`;

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    url: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    token: { type: 'string' },
    amount: { type: 'string' },
    id: { type: 'string' },
    bracket: { type: 'string' },
    bank: { type: 'string' },
    truncate: { type: 'string' },
    'forward-to': { type: 'string' },
  },
  allowPositionals: false,
});
const url = values.url ?? process.env.SERVICE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 4000}`;
const client = new ServiceClient(url.replace(/\/$/, ''));

try {
  if (command === 'bootstrap') {
    const out = await bootstrap(client, { email: values.email, password: values.password, name: values.name });
    console.log(JSON.stringify(out, null, 2));
  } else if (command === 'deposit') {
    if (!values.token || !values.name || !values.amount || !/^\d+$/.test(values.amount)) {
      console.error(USAGE);
      process.exit(2);
    }
    const r = await client.deposit(values.token, { depositorName: values.name, amount: Number(values.amount), notificationId: values.id });
    console.log(JSON.stringify({ status: r.status, ...r.body }, null, 2));
    if (r.status >= 400) process.exit(1);
  } else if (command === 'simulate-deposit') {
    if (!values.token || !values.name || !values.amount || !/^\d+$/.test(values.amount)) {
      console.error(USAGE);
      process.exit(2);
    }
    const name = simulatedDepositorName(values.name, { bracket: values.bracket, bank: values.bank, truncate: values.truncate });
    const r = await client.deposit(values.token, { depositorName: name, amount: Number(values.amount), notificationId: values.id });
    console.log(JSON.stringify({ status: r.status, depositorName: name, ...r.body }, null, 2));
    if (r.status >= 400) process.exit(1);
  } else if (command === 'listen') {
    if (!values.token) {
      console.error(USAGE);
      process.exit(2);
    }
    const ac = new AbortController();
    process.on('SIGINT', () => ac.abort());
    await listen({ url, token: values.token, forwardTo: values['forward-to'], signal: ac.signal });
  } else {
    console.error(USAGE);
    process.exit(2);
  }
} catch (e) {
  console.error(`Failed against ${url}: ${(e as Error).message}`);
  process.exit(1);
}

