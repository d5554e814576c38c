// Preloaded by `npm run bench:cli` (node --require) into each `dakiya` it runs: on exit, writes
// the process's user and system CPU time (µs, every thread) to the file BENCH_CPU_FILE names.
// A process that has exited can no longer be read from /proc, and Node cannot wait4() a child.
const file = process.env.BENCH_CPU_FILE;
if (file) {
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    require("node:fs").writeFileSync(file, JSON.stringify({ user, system }));
  });
}
