// Reviews per day as a calendar heatmap: a column per week, a row per weekday.
import { Box, Text } from 'ink';
import { SHADES, shade } from './chart-text.ts';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** `days` are consecutive review days, oldest first ('YYYY-MM-DD' and a count). */
export function Heatmap({ days }: { days: ReadonlyArray<{ day: string; count: number }> }) {
  const max = Math.max(0, ...days.map((d) => d.count));
  const weekday = (day: string) => (new Date(`${day}T12:00:00Z`).getUTCDay() + 6) % 7;
  const lead = days.length > 0 ? weekday(days[0].day) : 0;
  const cells: Array<string | null> = [...new Array<null>(lead).fill(null), ...days.map((d) => shade(d.count, max))];
  const weeks = Math.ceil(cells.length / 7);
  return (
    <Box flexDirection="column">
      {WEEKDAYS.map((name, row) => (
        <Text key={name}>
          <Text dimColor>{`${name} `}</Text>
          <Text color="green">
            {Array.from({ length: weeks }, (_, week) => `${cells[week * 7 + row] ?? ' '} `).join('')}
          </Text>
        </Text>
      ))}
      <Text dimColor>{`    less ${SHADES.join(' ')} more (max ${max} a day)`}</Text>
    </Box>
  );
}
