import { type ReactNode, useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import uPlot from "uplot";
import { api, type MessageReportRow, type OtpReportRow } from "../api";
import { ErrorNotice, Loading } from "../components/Feedback";
import { useEnvironment } from "../environment";
import { addInr, channelLabel, formatInr, formatSeconds } from "../format";
import { useResource } from "../use-resource";
import {
  dayToSeconds,
  formatReportDay,
  REPORT_PERIODS,
  type ReportDays,
  reportDaysOf,
  reportPeriod,
} from "./period";
import {
  CHART_COLOURS,
  deliveryRate,
  formatPercent,
  rupees,
  STATUS_PART_LABELS,
  STATUS_PARTS,
  statusParts,
  totals,
} from "./series";
import { UPlotChart } from "./UPlotChart";

/**
 * The Overview's charts of the environment's last 7, 30 or 90 days (`?period=` in the address):
 * messages per day by status, the delivery rate, the spend, and OTP conversion by channel. Each
 * chart has a heading and a sentence that says what it shows; the numbers by day are in a table.
 */
export default function ReportCharts() {
  const { environment } = useEnvironment();
  const [params, setParams] = useSearchParams();
  const days = reportDaysOf(params.get("period"));
  const { from, to } = reportPeriod(days);
  const load = useCallback(
    async (signal: AbortSignal) => {
      const [messages, otp] = await Promise.all([
        api.reportMessages(environment, { from, to, group_by: "day" }, signal),
        api.reportOtp(environment, { from, to }, signal),
      ]);
      return { days: messages.data, otp: otp.data };
    },
    [environment, from, to],
  );
  const report = useResource(load);

  const choose = (chosen: ReportDays) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.set("period", String(chosen));
        return next;
      },
      { replace: true },
    );

  return (
    <section className="card reports" aria-labelledby="reports-title">
      <div className="card-header">
        <div>
          <h2 id="reports-title">Activity</h2>
          <p className="muted small reports-period">
            {formatReportDay(from)} – {formatReportDay(to)}, days of India time
          </p>
        </div>
        {/* biome-ignore lint/a11y/useSemanticElements: a row of toggle buttons, not a form's fieldset */}
        <div className="segmented" role="group" aria-label="Period">
          {REPORT_PERIODS.map((option) => (
            <button
              key={option}
              type="button"
              className="segmented-option"
              aria-pressed={option === days}
              onClick={() => choose(option)}
            >
              {option} days
            </button>
          ))}
        </div>
      </div>
      <ErrorNotice error={report.error} />
      {report.loading && !report.data ? <Loading /> : null}
      {report.data ? (
        <>
          <div className="chart-grid">
            <MessagesChart rows={report.data.days} />
            <DeliveryRateChart rows={report.data.days} />
            <SpendChart rows={report.data.days} />
            <OtpConversion rows={report.data.otp} />
          </div>
          <DayTable rows={report.data.days} />
        </>
      ) : null}
    </section>
  );
}

function ChartFigure({
  id,
  title,
  summary,
  legend,
  children,
}: {
  id: string;
  title: string;
  summary: string;
  legend?: ReactNode;
  children: ReactNode;
}) {
  return (
    <figure className="chart" aria-labelledby={id} aria-describedby={`${id}-summary`}>
      <h3 id={id}>{title}</h3>
      <p id={`${id}-summary`} className="chart-summary">
        {summary}
      </p>
      {legend}
      {children}
    </figure>
  );
}

function Legend({ items }: { items: Array<{ label: string; colour: string; value: string }> }) {
  return (
    <ul className="chart-legend">
      {items.map((item) => (
        <li key={item.label} className="chart-legend-item">
          <span className="chart-swatch" style={{ background: item.colour }} aria-hidden="true" />
          {item.label} <strong>{item.value}</strong>
        </li>
      ))}
    </ul>
  );
}

const COUNT_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000];

/** What every day chart shares: UTC-midnight days on x (so ticks sit on the report's dates), no cursor. */
function dayChartOptions(
  series: uPlot.Series[],
  y: { values: (value: number) => string; range?: uPlot.Range.MinMax; incrs?: number[] },
): Omit<uPlot.Options, "width" | "height"> {
  // Half a day each side, so the first and last day's bar or point is whole.
  const halfDay = 43_200;
  return {
    padding: [12, 12, 0, 0],
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
    legend: { show: false },
    cursor: { show: false },
    scales: {
      x: { time: true, range: (_chart, min, max) => [min - halfDay, max + halfDay] },
      y: { range: (_chart, _min, max) => y.range ?? [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      {
        space: 56,
        values: (_chart, splits) => splits.map((split) => formatReportDay(split)),
        font: "11px system-ui, sans-serif",
        stroke: "#5d6781",
        grid: { show: false },
      },
      {
        size: 52,
        space: 30,
        ...(y.incrs ? { incrs: y.incrs } : {}),
        values: (_chart, splits) => splits.map(y.values),
        font: "11px system-ui, sans-serif",
        stroke: "#5d6781",
        grid: { stroke: "#e3e6ee", width: 1 },
      },
    ],
    series: [{}, ...series],
  };
}

function barSeries(label: string, colour: string): uPlot.Series {
  return {
    label,
    fill: colour,
    stroke: colour,
    width: 0,
    ...(barsPaths ? { paths: barsPaths } : {}),
    points: { show: false },
  };
}

/** Bars 70% of a day wide, at most 28 px, so that 7 days do not look like blocks. */
const barsPaths = uPlot.paths.bars?.({ size: [0.7, 28] });

const countLabel = (value: number) => (Number.isInteger(value) ? value.toLocaleString("en-IN") : "");

function MessagesChart({ rows }: { rows: MessageReportRow[] }) {
  const sum = totals(rows);
  const { options, data } = useMemo(() => {
    // Stacked by drawing running totals tallest first: each status paints over the one above it.
    const stacks = STATUS_PARTS.map((_, level) =>
      rows.map((row) => {
        const parts = statusParts(row);
        return STATUS_PARTS.slice(0, level + 1).reduce((total, part) => total + parts[part], 0);
      }),
    ).reverse();
    const options = dayChartOptions(
      [...STATUS_PARTS].reverse().map((part) => barSeries(STATUS_PART_LABELS[part], CHART_COLOURS[part])),
      { values: countLabel, incrs: COUNT_INCREMENTS },
    );
    const data: uPlot.AlignedData = [rows.map((row) => dayToSeconds(row.key ?? "")), ...stacks];
    return { options, data };
  }, [rows]);
  const busiest = rows.reduce<MessageReportRow | undefined>(
    (best, row) => (best === undefined || row.messages > best.messages ? row : best),
    undefined,
  );
  const summary =
    sum.messages === 0
      ? "No messages in this period."
      : `${sum.messages.toLocaleString("en-IN")} messages: ${STATUS_PARTS.map(
          (part) => `${sum[part].toLocaleString("en-IN")} ${STATUS_PART_LABELS[part].toLowerCase()}`,
        ).join(
          ", ",
        )}. The busiest day was ${formatReportDay(busiest?.key ?? "")} with ${busiest?.messages.toLocaleString("en-IN")}.`;
  return (
    <ChartFigure
      id="chart-messages"
      title="Messages per day, by status"
      summary={summary}
      legend={
        <Legend
          items={STATUS_PARTS.map((part) => ({
            label: STATUS_PART_LABELS[part],
            colour: CHART_COLOURS[part],
            value: sum[part].toLocaleString("en-IN"),
          }))}
        />
      }
    >
      <UPlotChart options={options} data={data} />
    </ChartFigure>
  );
}

function DeliveryRateChart({ rows }: { rows: MessageReportRow[] }) {
  const sum = totals(rows);
  const overall = deliveryRate(sum);
  const { options, data } = useMemo(() => {
    const options = dayChartOptions(
      [
        {
          label: "Delivered",
          stroke: CHART_COLOURS.rate,
          width: 2,
          points: { show: true, size: 6, fill: CHART_COLOURS.rate },
        },
      ],
      { values: (value) => `${Math.round(value * 100)}%`, range: [0, 1] },
    );
    const data: uPlot.AlignedData = [
      rows.map((row) => dayToSeconds(row.key ?? "")),
      rows.map((row) => deliveryRate(row)),
    ];
    return { options, data };
  }, [rows]);
  return (
    <ChartFigure
      id="chart-delivery-rate"
      title="Delivery rate per day"
      summary={
        overall === null
          ? "No messages in this period, so no delivery rate."
          : `${formatPercent(overall)} of the period's ${sum.messages.toLocaleString("en-IN")} messages were delivered (${sum.delivered.toLocaleString("en-IN")}); days without messages are left blank.`
      }
    >
      <UPlotChart options={options} data={data} />
    </ChartFigure>
  );
}

function SpendChart({ rows }: { rows: MessageReportRow[] }) {
  const spent = rows.reduce((total, row) => addInr(total, row.cost), "0");
  const { options, data } = useMemo(() => {
    const options = dayChartOptions([barSeries("Spend", CHART_COLOURS.spend)], {
      values: (value) => `₹${Number(value.toFixed(2)).toLocaleString("en-IN")}`,
    });
    const data: uPlot.AlignedData = [
      rows.map((row) => dayToSeconds(row.key ?? "")),
      rows.map((row) => rupees(row.cost)),
    ];
    return { options, data };
  }, [rows]);
  return (
    <ChartFigure
      id="chart-spend"
      title="Spend per day"
      summary={`${formatInr(spent)} spent in this period, net of refunds.`}
      legend={<Legend items={[{ label: "Spend", colour: CHART_COLOURS.spend, value: formatInr(spent) }]} />}
    >
      <UPlotChart options={options} data={data} />
    </ChartFigure>
  );
}

function OtpConversion({ rows }: { rows: OtpReportRow[] }) {
  const used = rows.filter((row) => row.sent > 0);
  const sent = used.reduce((total, row) => total + row.sent, 0);
  const verified = used.reduce((total, row) => total + row.verified, 0);
  return (
    <ChartFigure
      id="chart-otp"
      title="OTP conversion by channel"
      summary={
        sent === 0
          ? "No OTPs were sent in this period."
          : `${verified.toLocaleString("en-IN")} of ${sent.toLocaleString("en-IN")} OTPs verified (${formatPercent(verified / sent)}), by the channel each was first sent on.`
      }
    >
      {used.length === 0 ? null : (
        <ul className="otp-bars">
          {used.map((row) => (
            <li key={row.channel} className="otp-bar-row">
              <span className="otp-bar-label">{channelLabel(row.channel)}</span>
              <svg className="otp-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                <rect width="100" height="10" rx="2" fill="#eef0f4" />
                <rect width={(row.conversion_rate ?? 0) * 100} height="10" rx="2" fill={CHART_COLOURS.otp} />
              </svg>
              <span className="otp-bar-value">
                <strong className="otp-bar-percent">
                  {row.conversion_rate === null ? "–" : formatPercent(row.conversion_rate)}
                </strong>{" "}
                {row.verified.toLocaleString("en-IN")} of {row.sent.toLocaleString("en-IN")} verified
                {row.median_seconds_to_verify === null
                  ? ""
                  : `, median ${formatSeconds(Math.round(row.median_seconds_to_verify))}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </ChartFigure>
  );
}

/** The day charts' numbers, for whoever cannot or would rather not read a chart. */
function DayTable({ rows }: { rows: MessageReportRow[] }) {
  return (
    <details className="chart-table">
      <summary>The numbers by day</summary>
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">Messages, statuses, delivery rate and spend by day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Messages</th>
              {STATUS_PARTS.map((part) => (
                <th key={part} scope="col">
                  {STATUS_PART_LABELS[part]}
                </th>
              ))}
              <th scope="col">Delivery rate</th>
              <th scope="col">Spend</th>
            </tr>
          </thead>
          <tbody>
            {[...rows].reverse().map((row) => {
              const parts = statusParts(row);
              const rate = deliveryRate(row);
              return (
                <tr key={row.key}>
                  <th scope="row">{formatReportDay(row.key ?? "")}</th>
                  <td>{row.messages}</td>
                  {STATUS_PARTS.map((part) => (
                    <td key={part}>{parts[part]}</td>
                  ))}
                  <td>{rate === null ? "–" : formatPercent(rate)}</td>
                  <td>{formatInr(row.cost)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
}
