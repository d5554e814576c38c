import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/** The plot's height in CSS pixels; the width is its container's. */
const HEIGHT = 220;

/**
 * A uPlot chart that fills its container's width and follows it as it resizes (a phone turned,
 * the sidebar folded). The chart is drawn again whenever `options` or `data` change; memoise them.
 * The canvas is hidden from screen readers: each chart's figure carries its own text alternative.
 */
export function UPlotChart({
  options,
  data,
}: {
  options: Omit<uPlot.Options, "width" | "height">;
  data: uPlot.AlignedData;
}) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const chart = new uPlot({ ...options, width: element.clientWidth, height: HEIGHT }, data, element);
    const observer = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: HEIGHT }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [options, data]);
  return <div ref={container} className="chart-plot" aria-hidden="true" />;
}
