/** `npm run -s cli -- <command>` against a running service: bootstrap, deposit, simulate-deposit, forward-text, listen, the simulated shop's and the simulated history's commands (USAGE below). */
import { parseArgs } from 'node:util';
import { ServiceClient, bootstrap } from './client.ts';
import { listen } from './listen.ts';
import { simulatedDepositorName } from './simulate.ts';
import { connectSimulatedHistory, simulateHistoryDeposit } from './history.ts';
import { connectSimulatedShop, shopOrder, simulatedShopSide, simulateShopOrder, waitForShopOrder } from './shops.ts';

const USAGE = `Usage:
  npm run -s cli -- bootstrap [--url URL] [--email E] [--password P] [--name N]
  npm run -s cli -- deposit --token <notificationToken> --name <depositorName> --amount <won> [--id <notificationId>] [--url URL]
  npm run -s cli -- simulate-deposit --token <notificationToken> --name <depositorName> --amount <won> [--bracket "(123)"] [--bank SHINHAN | --truncate 7]
  npm run -s cli -- listen --token <API key or session token> [--forward-to http://localhost:3000/webhooks] [--since <event sequence>] [--url URL]
  npm run -s cli -- forward-text --token <notificationToken> --text "<the bank's text>" [--channel SMS|PUSH] [--sender <number or app>]
  npm run -s cli -- connect-simulated-shop --token <session token> --shop <name>
  npm run -s cli -- simulate-shop-order --token <token> --connection <shc_...> --name <buyer's depositor name> --amount <won> [--pay-within-hours H]
  npm run -s cli -- shop-order --token <token> --connection <shc_...> --order <order id> [--wait-for CONFIRMED]
  npm run -s cli -- connect-simulated-history --token <session token> --account <bac_...>
  npm run -s cli -- simulate-history-deposit --token <token> --feed <hfd_...> --name <depositorName> --amount <won> [--balance <won>]

Every command takes --url URL: the service's address (default $SERVICE_URL, else http://127.0.0.1:$PORT, PORT 4000).`;

const [command, ...rest] = process.argv.slice(2);

/** The command line read, or the usage with what is wrong in it (exit 2), never a stack trace. */
function parsed() {
  try {
    return parseCommandLine();
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const parseCommandLine = () => parseArgs({
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
    since: { type: 'string' },
    shop: { type: 'string' },
    text: { type: 'string' },
    channel: { type: 'string' },
    sender: { type: 'string' },
    connection: { type: 'string' },
    order: { type: 'string' },
    'pay-within-hours': { type: 'string' },
    'wait-for': { type: 'string' },
    account: { type: 'string' },
    feed: { type: 'string' },
    balance: { type: 'string' },
  },
  allowPositionals: false,
});
const { values } = parsed();
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
  } else if (command === 'forward-text') {
    // What a phone's forwarder does with a bank's text: POST /bank-texts, received now (README, Bank texts).
    if (!values.token || !values.text || (values.channel && !['SMS', 'PUSH'].includes(values.channel))) usage();
    const r = await client.request('POST', '/bank-texts', {
      token: values.token,
      body: { text: values.text!.replace(/\\n/g, '\n'), receivedAt: new Date().toISOString(), channel: values.channel ?? 'SMS', sender: values.sender ?? null },
    });
    console.log(JSON.stringify({ status: r.status, ...r.body }, null, 2));
    if (r.status >= 400) process.exit(1);
  } else if (command === 'connect-simulated-shop') {
    if (!values.token || !values.shop) usage();
    console.log(JSON.stringify(await connectSimulatedShop(client, values.token!, values.shop!), null, 2));
  } else if (command === 'simulate-shop-order') {
    if (!values.token || !values.connection || !values.name || !values.amount || !/^\d+$/.test(values.amount)) usage();
    const hours = values['pay-within-hours'];
    if (hours !== undefined && !/^\d+$/.test(hours)) usage();
    const out = await simulateShopOrder(client, values.token!, {
      connectionId: values.connection!,
      buyerName: values.name!,
      amount: Number(values.amount),
      ...(hours !== undefined ? { payWithinHours: Number(hours) } : {}),
    });
    console.log(JSON.stringify(out, null, 2));
  } else if (command === 'shop-order') {
    if (!values.token || !values.connection || !values.order) usage();
    const wanted = values['wait-for'];
    const ours = wanted
      ? await waitForShopOrder(client, values.token!, values.connection!, values.order!, (o) => o?.state === wanted)
      : await shopOrder(client, values.token!, values.connection!, values.order!);
    const shop = await simulatedShopSide(client, values.token!, values.connection!, values.order!).catch(() => null);
    console.log(JSON.stringify({ order: ours, shop }, null, 2));
    if (wanted && ours?.state !== wanted) process.exit(1);
  } else if (command === 'connect-simulated-history') {
    if (!values.token || !values.account) usage();
    console.log(JSON.stringify(await connectSimulatedHistory(client, values.token!, values.account!), null, 2));
  } else if (command === 'simulate-history-deposit') {
    if (!values.token || !values.feed || !values.name || !values.amount || !/^\d+$/.test(values.amount)) usage();
    if (values.balance !== undefined && !/^-?\d+$/.test(values.balance)) usage();
    const out = await simulateHistoryDeposit(client, values.token!, {
      feedId: values.feed!,
      depositorName: values.name!,
      amount: Number(values.amount),
      ...(values.balance !== undefined ? { balanceAfter: Number(values.balance) } : {}),
    });
    console.log(JSON.stringify(out, null, 2));
    if (!out.deposit) process.exit(1);
  } else if (command === 'listen') {
    if (!values.token || (values.since !== undefined && !/^\d{1,19}$/.test(values.since))) {
      console.error(`${values.token ? '--since takes an event sequence: a number the listen output printed after #.\n\n' : ''}${USAGE}`);
      process.exit(2);
    }
    const ac = new AbortController();
    process.on('SIGINT', () => ac.abort());
    await listen({ url, token: values.token, forwardTo: values['forward-to'], since: values.since, signal: ac.signal });
  } else {
    console.error(USAGE);
    process.exit(2);
  }
} catch (e) {
  console.error(`Failed against ${url}: ${(e as Error).message}`);
  process.exit(1);
}

function usage(): never {
  console.error(USAGE);
  process.exit(2);
}

