// The suite's time zone. A study day starts at dayStartsAt (04:00 local by default), so a test
// that rates a card and expects it due later "today" fails when it runs in the minutes before
// that hour. Unless TZ is set (to try kb in a given zone), every test file runs in the
// fixed-offset zone where it is now early afternoon, far from any day boundary; kb, run by the
// tests (test/helpers/kb-cli.ts, tmux.ts), inherits it. It also keeps the suite honest about
// local time: most days the zone is not UTC.
if (!process.env.TZ) {
  const offset = 13 - new Date().getUTCHours(); // -10 .. +13 hours
  // Etc/GMT's sign is POSIX's: Etc/GMT-8 is eight hours ahead of UTC.
  process.env.TZ = offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}
