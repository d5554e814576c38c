import { collectDefaultMetrics, Registry } from "prom-client";

let processRegistry: Registry | undefined;

/**
 * The process's own metrics (CPU, memory, event loop lag, GC, handles): one registry per process,
 * made on first use, however many contexts the process opens. Each context's registry holds only
 * its own families, so tests with several apps in one process do not clash.
 */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
