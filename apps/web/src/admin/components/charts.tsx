/**
 * Two small charts drawn by hand in SVG (no chart library): bars per day, and labelled horizontal bars
 * (the funnel, recordings per story). Both mirror for Arabic: time runs right to left, bars grow from
 * the start side.
 */
const W = 640;

function niceMax(max: number) {
  if (max <= 5) return Math.max(1, max);
  const magnitude = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / magnitude) * magnitude;
}

export function DayBars({
  data,
  label,
  rtl,
  color = "var(--admin-accent)",
}: {
  data: { day: string; count: number }[];
  label: string;
  rtl: boolean;
  color?: string;
}) {
  const H = 220;
  const pad = { top: 16, bottom: 34, side: 36 };
  const max = niceMax(Math.max(0, ...data.map((d) => d.count)));
  const innerW = W - pad.side * 2;
  const innerH = H - pad.top - pad.bottom;
  const slot = innerW / Math.max(1, data.length);
  const barW = Math.max(2, Math.min(28, slot * 0.7));
  const labelEvery = Math.max(1, Math.ceil(data.length / 8));
  const xOf = (i: number) => {
    const x = pad.side + slot * i + (slot - barW) / 2;
    return rtl ? W - x - barW : x;
  };
  const total = data.reduce((s, d) => s + d.count, 0);
  return (
    <svg className="admin-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${label}: ${total}`}>
      <title>{label}</title>
      {[0, 0.5, 1].map((f) => {
        const y = pad.top + innerH * (1 - f);
        return (
          <g key={f}>
            <line x1={pad.side} x2={W - pad.side} y1={y} y2={y} className="admin-chart__grid" />
            <text
              x={rtl ? W - pad.side + 6 : pad.side - 6}
              y={y + 4}
              textAnchor={rtl ? "start" : "end"}
              className="admin-chart__axis"
            >
              {Math.round(max * f)}
            </text>
          </g>
        );
      })}
      {data.map((d, i) => {
        const h = (d.count / max) * innerH;
        return (
          <g key={d.day}>
            <rect x={xOf(i)} y={pad.top + innerH - h} width={barW} height={Math.max(h, d.count > 0 ? 1 : 0)} rx={2} fill={color}>
              <title>{`${d.day}: ${d.count}`}</title>
            </rect>
            {i % labelEvery === 0 && (
              <text x={xOf(i) + barW / 2} y={H - 12} textAnchor="middle" className="admin-chart__axis">
                {d.day.slice(5)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

export function HBars({
  rows,
  label,
  rtl,
  color = "var(--admin-accent)",
}: {
  rows: { label: string; count: number }[];
  label: string;
  rtl: boolean;
  color?: string;
}) {
  const rowH = 30;
  const labelW = 190;
  const countW = 48;
  const H = Math.max(rowH, rows.length * rowH) + 8;
  const max = Math.max(1, ...rows.map((r) => r.count));
  const barSpace = W - labelW - countW - 16;
  return (
    <svg className="admin-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
      <title>{label}</title>
      {rows.map((r, i) => {
        const y = 4 + i * rowH;
        const w = (r.count / max) * barSpace;
        const barX = rtl ? W - labelW - w : labelW;
        return (
          <g key={r.label}>
            <text
              x={rtl ? W - 4 : labelW - 10}
              y={y + rowH / 2 + 4}
              textAnchor={rtl ? "start" : "end"}
              direction={rtl ? "rtl" : "ltr"}
              className="admin-chart__label"
            >
              {r.label.length > 38 ? `${r.label.slice(0, 37)}…` : r.label}
            </text>
            <rect x={barX} y={y + 5} width={Math.max(w, r.count > 0 ? 2 : 0)} height={rowH - 10} rx={3} fill={color} />
            <text
              x={rtl ? barX - 6 : barX + w + 6}
              y={y + rowH / 2 + 4}
              textAnchor={rtl ? "end" : "start"}
              className="admin-chart__value"
            >
              {r.count}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
