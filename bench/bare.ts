// The ceiling of a Node HTTP server on this machine: one Fastify route answering the JSON of
// GET /v2/balance, with nothing behind it (no key check, no database). `npm run bench` starts it
// as a child process (`node --import tsx bench/bare.ts`, PORT and HOST from the environment),
// loads it exactly like Dakiya's routes and divides every scenario's requests/s by its own.

import Fastify from "fastify";

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? "127.0.0.1";

const app = Fastify({ logger: false });
app.get("/v2/balance", async () => ({ environment: "sandbox", balance: "1000000.0000", currency: "INR" }));

const close = () => {
  void app.close().finally(() => process.exit(0));
};
process.once("SIGTERM", close);
process.once("SIGINT", close);

await app.listen({ port, host });
process.stdout.write(`listening on ${host}:${port}\n`);
