// The API processes of `npm run bench -- --api-procs N`: N `dakiya serve --no-worker` processes
// sharing one port through Node's cluster module (this process, the primary, accepts each
// connection and hands it to the next of them in turn). Node 20 has no `reusePort` for HTTP
// servers (it came in Node 22.12), so the cluster is the way to one port. Delivery runs in a
// separate `dakiya worker` that the bench starts beside it (bench/api-procs.ts).
//
// Usage: node --import tsx bench/cluster.ts <processes> [node options for the API processes…]
// The environment (PORT, DATABASE_URL, …) is passed on. The primary writes one line with the API
// processes' pids ({"api_pids":[…]}) once every one is listening, and exits when any of them
// does (with its code), or after stopping them all on SIGTERM/SIGINT.

import cluster, { type Worker } from "node:cluster";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const count = Number(process.argv[2]);
if (!Number.isInteger(count) || count < 1 || count > 16) {
  process.stderr.write(
    `bench/cluster.ts: the number of API processes must be 1 to 16, got "${process.argv[2]}"\n`,
  );
  process.exit(2);
}

cluster.setupPrimary({
  exec: join(ROOT, "bin", "dakiya.js"),
  args: ["serve", "--no-worker"],
  // Not this primary's --import tsx: production runs the compiled JavaScript.
  execArgv: process.argv.slice(3),
});

const workers: Worker[] = [];
let listening = 0;
let stopping = false;
for (let i = 0; i < count; i++) {
  const worker = cluster.fork();
  workers.push(worker);
  worker.once("listening", () => {
    listening += 1;
    if (listening === count) {
      process.stdout.write(`${JSON.stringify({ api_pids: workers.map((w) => w.process.pid) })}\n`);
    }
  });
  worker.once("exit", (code, signal) => {
    if (stopping) return;
    process.stderr.write(
      `bench/cluster.ts: API process ${worker.process.pid} exited with ${code ?? signal}\n`,
    );
    stop(typeof code === "number" && code !== 0 ? code : 1);
  });
}

function stop(code: number): void {
  stopping = true;
  const alive = workers.filter((w) => w.process.exitCode === null && w.process.signalCode === null);
  if (alive.length === 0) process.exit(code);
  let left = alive.length;
  for (const worker of alive) {
    worker.process.once("exit", () => {
      left -= 1;
      if (left === 0) process.exit(code);
    });
    worker.process.kill("SIGTERM");
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => stop(0));
