import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpRequestMetrics } from "../../src/metrics/http-requests.js";
import { parseExposition } from "../helpers/prometheus.js";

/*
 * The HTTP request families, counted by hand, against what they must say in the text format:
 * every request counted by its route, method and status; cumulative buckets; sum and count.
 */

const BOUNDS = [
  "0.001",
  "0.0025",
  "0.005",
  "0.01",
  "0.025",
  "0.05",
  "0.1",
  "0.25",
  "0.5",
  "1",
  "2.5",
  "5",
  "10",
  "+Inf",
];

const request = fc.record({
  route: fc.constantFrom("/v2/sms/send", "/v2/sms/:id", "unmatched", 'odd "route"\\with\nbreaks'),
  method: fc.constantFrom("GET", "POST"),
  status: fc.constantFrom(200, 202, 404, 429),
  seconds: fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), fc.constantFrom(0.001, 0.0025, 10)),
});

describe("HTTP request metrics", () => {
  it("states exactly the requests recorded, in a well-formed exposition", () => {
    fc.assert(
      fc.property(fc.array(request, { maxLength: 60 }), (requests) => {
        const metrics = new HttpRequestMetrics();
        for (const r of requests) metrics.record(r.route, r.method, r.status, r.seconds);
        const exposition = parseExposition(metrics.exposition());
        expect(exposition.types.get("dakiya_http_requests_total")).toBe("counter");
        expect(exposition.types.get("dakiya_http_request_duration_seconds")).toBe("histogram");

        const sample = (name: string, labels: Record<string, string>) =>
          exposition.samples.filter(
            (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
          );
        for (const r of requests) {
          const series = { route: r.route, method: r.method };
          const same = requests.filter((o) => o.route === r.route && o.method === r.method);
          const [counted] = sample("dakiya_http_requests_total", { ...series, status: String(r.status) });
          expect(counted?.value).toBe(same.filter((o) => o.status === r.status).length);
          expect(sample("dakiya_http_request_duration_seconds_count", series)[0]?.value).toBe(same.length);
          const sum = sample("dakiya_http_request_duration_seconds_sum", series)[0]?.value ?? Number.NaN;
          expect(sum).toBeCloseTo(
            same.reduce((total, o) => total + o.seconds, 0),
            6,
          );
          const buckets = sample("dakiya_http_request_duration_seconds_bucket", series);
          expect(buckets.map((b) => b.labels.le)).toEqual(BOUNDS);
          for (const bucket of buckets) {
            const bound = bucket.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(bucket.labels.le);
            expect(bucket.value).toBe(same.filter((o) => o.seconds <= bound).length);
          }
        }
        const seriesCount = new Set(requests.map((r) => `${r.method} ${r.route} ${r.status}`)).size;
        expect(sample("dakiya_http_requests_total", {}).length).toBe(seriesCount);
      }),
    );
  });

  it("declares both families with no samples before any request", () => {
    const exposition = parseExposition(new HttpRequestMetrics().exposition());
    expect(exposition.samples).toEqual([]);
    expect([...exposition.types.keys()]).toEqual([
      "dakiya_http_requests_total",
      "dakiya_http_request_duration_seconds",
    ]);
  });
});
