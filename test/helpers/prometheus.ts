/** One sample of a Prometheus text exposition: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The metric families' declared types (`# TYPE name counter`) and every sample. */
export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

/**
 * Parses the Prometheus text format (version 0.0.4) strictly: a line that is neither a comment
 * nor a well-formed sample throws, so a malformed exposition fails the test that reads it.
 */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1] as string, type[2] as string);
      else if (!line.startsWith("# HELP ")) throw new Error(`unexpected comment: ${line}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample: ${line}`);
    const [, name, labelText = "", valueText] = match;
    samples.push({
      name: name as string,
      labels: parseLabels(labelText, line),
      value: parseValue(valueText as string),
    });
  }
  return { types, samples };
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match) throw new Error(`bad labels at ${at} in: ${line}`);
    labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) =>
      c === "n" ? "\n" : c,
    );
  }
  return labels;
}

/** A float as Prometheus reads one (Go's ParseFloat: `NaN` and `Inf` in any case; prom-client writes `Nan`). */
function parseValue(text: string): number {
  const special = text.toLowerCase();
  if (special === "nan") return Number.NaN;
  if (special === "+inf" || special === "inf") return Number.POSITIVE_INFINITY;
  if (special === "-inf") return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad value: ${text}`);
  return value;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none). */
export function total(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples
    .filter((sample) => sample.name === name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Whether any sample is named `name` (with `labels`). */
export function has(exposition: Exposition, name: string, labels: Record<string, string> = {}): boolean {
  return exposition.samples.some(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}
