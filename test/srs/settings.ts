// Review settings for tests: kb's defaults, with overrides.
import { defaultConfig } from '../../src/kb/config.ts';
import type { ReviewSettings } from '../../src/srs/review-settings.ts';

export function testSettings(overrides: Partial<ReviewSettings> = {}): ReviewSettings {
  return { ...defaultConfig, ...overrides };
}
