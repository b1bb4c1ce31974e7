// Analytics: sentiment per week and tone as charts (uPlot, loaded with this page only), talk share
// and conversation metrics by role.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import 'uplot/dist/uPlot.min.css';

interface Vibe {
  sentimentDistribution: Record<string, number>;
  userSentimentDistribution: Record<string, number>;
  contactSentimentDistribution: Record<string, number>;
  sentimentTrend: Array<{ week: string; counts: Record<string, number> }>;
  toneProfile: { formality: Record<string, number>; energy: Record<string, number>; pace: Record<string, number> };
  conversationMetrics?: {
    callCount: number;
    averageDurationSeconds: number | null;
    averageTurnCount: number | null;
    averageInterruptionCount: number | null;
    averageSilenceShare: number | null;
    averageResponseLatencySeconds: number | null;
    byRole: Record<string, { callCount: number; averageTalkShare: number | null; averageWordsPerMinute: number | null }>;
  };
}

const SENTIMENTS = ['positive', 'neutral', 'mixed', 'negative'];
const COLORS: Record<string, string> = { positive: '#2e7d32', neutral: '#546e7a', mixed: '#b26a00', negative: '#c62828' };

function TrendChart({ trend }: { trend: Vibe['sentimentTrend'] }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current || trend.length === 0) return;
    let chart: { destroy(): void } | null = null;
    void import('uplot').then(({ default: UPlot }) => {
      if (!el.current) return;
      const xs = trend.map((w) => Date.parse(w.week) / 1000);
      const series = SENTIMENTS.map((s) => trend.map((w) => w.counts[s] ?? 0));
      chart = new UPlot(
        {
          width: Math.min(800, el.current.clientWidth || 600),
          height: 240,
          series: [{}, ...SENTIMENTS.map((s) => ({ label: s, stroke: COLORS[s], width: 2 }))],
          axes: [{}, { label: 'calls' }],
        },
        [xs, ...series],
        el.current,
      );
    });
    return () => chart?.destroy();
  }, [trend]);
  return <div ref={el} role="img" aria-label={`Calls per week by sentiment: ${trend.map((w) => `${w.week}: ${SENTIMENTS.map((s) => `${w.counts[s] ?? 0} ${s}`).join(', ')}`).join('; ')}`} />;
}

function Bars({ title, data }: { title: string; data: Record<string, number> }) {
  const total = Object.values(data).reduce((a, b) => a + b, 0);
  return (
    <figure class="bars">
      <figcaption>{title}</figcaption>
      {total === 0 ? (
        <p>No calls yet.</p>
      ) : (
        <ul>
          {Object.entries(data).map(([k, v]) => (
            <li key={k}>
              <span class="bar-label">{k}</span>
              <span class="bar" style={{ width: `${(100 * v) / total}%`, background: COLORS[k] ?? '#1f5fbf' }} />
              <span>{v}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

export function AnalyticsPage() {
  const [days, setDays] = useState(30);
  const [vibe, setVibe] = useState<Vibe | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Vibe>('GET', `/api/analytics/vibe?days=${days}`).then(setVibe, (e) => setError((e as Error).message));
  }, [days]);
  const m = vibe?.conversationMetrics;
  const pct = (v: number | null | undefined) => (v == null ? '–' : `${Math.round(v * 100)} %`);
  const num = (v: number | null | undefined, unit = '') => (v == null ? '–' : `${Math.round(v * 10) / 10}${unit}`);
  return (
    <>
      <h1>Analytics</h1>
      <label>
        Period
        <select value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          <option value="7">Last 7 days</option>
          <option value="30">Last 30 days</option>
          <option value="90">Last 90 days</option>
          <option value="365">Last year</option>
        </select>
      </label>
      {error && <p role="alert">{error}</p>}
      {vibe && (
        <>
          <section aria-labelledby="trend-heading">
            <h2 id="trend-heading">Sentiment per week</h2>
            {vibe.sentimentTrend.length ? <TrendChart trend={vibe.sentimentTrend} /> : <p>No analysed calls in this period.</p>}
          </section>
          <section aria-labelledby="dist-heading" class="grid3">
            <h2 id="dist-heading">Sentiment and tone</h2>
            <Bars title="Overall sentiment" data={vibe.sentimentDistribution} />
            <Bars title="Your sentiment" data={vibe.userSentimentDistribution} />
            <Bars title="Contacts' sentiment" data={vibe.contactSentimentDistribution} />
            <Bars title="Formality" data={vibe.toneProfile.formality} />
            <Bars title="Energy" data={vibe.toneProfile.energy} />
            <Bars title="Pace" data={vibe.toneProfile.pace} />
          </section>
          {m && (
            <section aria-labelledby="metrics-heading">
              <h2 id="metrics-heading">Conversation metrics ({m.callCount} calls)</h2>
              <table>
                <tbody>
                  <tr><th scope="row">Average length</th><td>{num(m.averageDurationSeconds, ' s')}</td></tr>
                  <tr><th scope="row">Turns per call</th><td>{num(m.averageTurnCount)}</td></tr>
                  <tr><th scope="row">Interruptions per call</th><td>{num(m.averageInterruptionCount)}</td></tr>
                  <tr><th scope="row">Silence</th><td>{pct(m.averageSilenceShare)}</td></tr>
                  <tr><th scope="row">Response latency</th><td>{num(m.averageResponseLatencySeconds, ' s')}</td></tr>
                </tbody>
              </table>
              <Bars title="Talk share by role (%)" data={Object.fromEntries(Object.entries(m.byRole).map(([role, r]) => [role, Math.round((r.averageTalkShare ?? 0) * 100)]))} />
            </section>
          )}
        </>
      )}
    </>
  );
}
