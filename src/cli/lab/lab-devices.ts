// `kb lab devices`: the devices the sim can model, with where each one's numbers come from.
import type { Command } from 'commander';
import { terminalColumns } from '../terminal-output.ts';

export function registerDevices(lab: Command): void {
  lab
    .command('devices')
    .description('list the devices the sim can model: built-in GPUs (datasheet), published profiles and the ones calibrated here (named by their files), with their source and fit error; a poor fit is marked with the command to calibrate again, a file kb cannot use with what to do')
    .option('--json', 'print as JSON')
    .action(async (_flags: unknown, command: Command) => {
      await devicesCommand(Boolean(command.optsWithGlobals().json));
    });
}

async function devicesCommand(json: boolean): Promise<void> {
  const { namedDevices } = await import('../../engine/index.ts');
  const { publishedProfiles } = await import('../../lab/devices/published-profiles.ts');
  const { listStoredProfiles, profilesDir } = await import('../../lab/devices/profile-store.ts');
  const { describeSource, fitSummary, listingLines, poorFit } = await import('../../lab/devices/device-profile.ts');
  const builtIn = Object.entries(namedDevices).map(([name, d]) => ({
    name,
    kind: 'datasheet' as const,
    model: null,
    source: `datasheet: ${(d.peakFlops / 1e12).toFixed(0)} TFLOP/s, ${(d.bandwidth / 1e9).toFixed(0)} GB/s, ${(d.memoryBytes / 1024 ** 3).toFixed(0)} GiB, efficiency ${d.efficiency}, ${d.stepOverheadMs} ms a step`,
    fit: 'not checked against a measurement',
    poorFit: false,
    error: null as string | null,
  }));
  const published = publishedProfiles();
  const stored = listStoredProfiles();
  const profiles = [
    ...published.map((p) => ({ name: p.name, kind: 'published' as const, model: p.model, source: describeSource(p), fit: fitSummary(p), poorFit: false, error: null as string | null })),
    ...stored.map((s) =>
      s.profile
        ? { name: s.name, kind: 'calibrated' as const, model: s.profile.model, source: describeSource(s.profile), fit: fitSummary(s.profile), poorFit: s.profile.fit !== undefined && poorFit(s.profile.fit) !== null, error: null }
        : { name: s.name, kind: 'broken' as const, model: null, source: s.path, fit: '', poorFit: false, error: s.error },
    ),
  ];
  const rows = [...builtIn, ...profiles];
  if (json) {
    process.stdout.write(`${JSON.stringify({ profilesDir: profilesDir(), devices: rows }, null, 2)}\n`);
    return;
  }
  const { nameListing } = await import('../../ui/text/name-listing.ts');
  const entry = (name: string, listed: ReturnType<typeof listingLines>) => ({ name, lines: [listed.head, ...listed.lines] });
  const entries = [
    ...builtIn.map((d) => ({ name: d.name, lines: ['datasheet GPU', { label: 'figures', text: d.source.replace(/^datasheet: /, '') }, { label: 'fit', text: d.fit }] })),
    ...published.map((p) => entry(p.name, listingLines(p))),
    ...stored.map((s) => (s.profile ? entry(s.name, listingLines(s.profile)) : { name: s.name, lines: [`(broken) ${s.error}`] })),
  ];
  const hints = [`Calibrated profiles live in ${profilesDir()}.`, 'Make one: kb lab calibrate [--model M]', 'Use one: kb lab <name> --backend sim --set device=NAME'];
  process.stdout.write(nameListing(entries, hints, terminalColumns()));
}
