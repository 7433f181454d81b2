// kb stats on the terminal: forecast, history heatmap, retention, states, memory.
import { Box, Text, renderToString } from 'ink';
import type { ReactNode } from 'react';
import type { StatsReport } from '../../app/stats/stats-report.ts';
import { BarList } from './BarList.tsx';
import { ColumnChart } from './ColumnChart.tsx';
import { Heatmap } from './Heatmap.tsx';
import { noColorWanted, withoutColours } from '../text/no-color.ts';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box flexDirection="column" marginBottom={1}>
      <Text bold>{title}</Text>
      {children}
    </Box>
  );
}

function percent(value: number | null): string {
  return value === null ? '–' : `${(value * 100).toFixed(1)}%`;
}

/**
 * What stands in for the due forecast when no card falls due in it: an empty chart had "0" at
 * both ends of its scale (found as a user on a fresh knowledge base), and said nothing of how
 * to get something to chart. New cards are not in the forecast until their first review.
 */
function emptyForecastLine(report: StatsReport): string {
  if (report.counts.total === 0) return 'Nothing to chart yet: no cards. Add one: kb add "Question?" --answer "Answer."';
  const reviewed = report.stability.reduce((sum, bucket) => sum + bucket.count, 0);
  if (reviewed === 0) return 'Nothing to chart yet: cards are scheduled by their first review (kb review).';
  return `No card falls due in the next ${report.forecast.length} days.`;
}

/** The weakest tags shown; the rest are counted (a dropped tag went unsaid). */
const QUIZ_TAGS_SHOWN = 12;

export function StatsView({ report, width }: { report: StatsReport; width: number }) {
  const { counts } = report;
  const columnWidth = Math.max(1, Math.min(3, Math.floor((width - 8) / report.forecast.length)));
  const axis = report.forecast
    .map((_, day) => (day % 7 === 0 ? (day === 0 ? 'today' : `+${day}`) : ''))
    .reduce((line, label, day) => (label ? line.padEnd(day * columnWidth) + label : line), '');
  const dueTotal = report.forecast.reduce((sum, day) => sum + day.count, 0);
  const reviewCount = report.reviewsPerDay.reduce((sum, day) => sum + day.count, 0);
  return (
    <Box flexDirection="column" width={width}>
      <Section title={`Due in the next ${report.forecast.length} days (${dueTotal} card${dueTotal === 1 ? '' : 's'}; today includes overdue)`}>
        {dueTotal === 0 ? (
          <Text>{emptyForecastLine(report)}</Text>
        ) : (
          <ColumnChart values={report.forecast.map((d) => d.count)} height={6} columnWidth={columnWidth} axis={axis} />
        )}
      </Section>
      <Section title={`Reviews per day, last ${report.reviewsPerDay.length / 7} weeks (${reviewCount} review${reviewCount === 1 ? '' : 's'})`}>
        <Heatmap days={report.reviewsPerDay} />
      </Section>
      <Section title={`True retention per week (review cards not answered Again; overall ${percent(report.overallRetention)})`}>
        <BarList
          width={width}
          color="green"
          items={report.retention.map((week) => ({
            label: week.week,
            value: week.retention ?? 0,
            text: week.retention === null ? '–' : `${percent(week.retention)} of ${week.reviews}`,
          }))}
        />
      </Section>
      {/* Leech is a flag on a card of any state: said beside the total, not as one more row to add up. */}
      <Section title={`Cards by state (${counts.total} in all${report.leeches > 0 ? `; ${report.leeches} leech${report.leeches === 1 ? '' : 'es'} among them` : ''})`}>
        <BarList
          width={width}
          items={[
            { label: 'new', value: counts.new },
            { label: 'learning', value: counts.learning },
            { label: 'review', value: counts.review },
            { label: 'relearning', value: counts.relearning },
            { label: 'suspended', value: counts.suspended },
            { label: 'buried', value: counts.buried },
          ]}
        />
      </Section>
      <Section title="Stability (days until recall falls to 90%)">
        <BarList width={width} items={report.stability.map((b) => ({ label: b.label, value: b.count }))} />
      </Section>
      <Section title="Difficulty (FSRS, 1 easy .. 10 hard)">
        <BarList width={width} color="yellow" items={report.difficulty.map((b) => ({ label: b.label, value: b.count }))} />
      </Section>
      {report.quizAccuracy.length > 0 && (
        <Section title="Quiz accuracy by tag (kb quiz answers, weakest first)">
          <BarList
            width={width}
            color="magenta"
            items={report.quizAccuracy.slice(0, QUIZ_TAGS_SHOWN).map((tag) => ({
              label: tag.tag,
              value: tag.accuracy,
              text: `${percent(tag.accuracy)} of ${tag.asked}`,
            }))}
          />
          {report.quizAccuracy.length > QUIZ_TAGS_SHOWN ? <Text dimColor>{`and ${report.quizAccuracy.length - QUIZ_TAGS_SHOWN} more (kb stats --json lists every tag)`}</Text> : null}
        </Section>
      )}
    </Box>
  );
}

/** The whole report as terminal text, `width` columns wide (kb stats prints it once); without colours under NO_COLOR. */
export function statsText(report: StatsReport, width: number): string {
  const text = renderToString(<StatsView report={report} width={width} />, { columns: width });
  return noColorWanted() ? withoutColours(text) : text;
}
