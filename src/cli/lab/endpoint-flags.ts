// `kb lab <name> --endpoint URL`: the flags that point a lab at a server, checked before
// anything runs. Settings the server owns (its engine, its model, its hardware) are refused
// with a sentence saying so; the server is asked once that it answers, which model to use
// and whether it takes ignore_eos, so a refused connection is one line and stores nothing.
import type { EndpointSession } from '../../lab/endpoint/run-point.ts';
import { serverOwnedKey, type SettingOverride } from '../../lab/lab-settings.ts';
import { UserError } from '../errors.ts';
import { plainNumber } from '../number-option.ts';

export interface EndpointFlags {
  endpoint?: string;
  model?: string;
  apiKeyEnv?: string;
  maxConcurrency?: string;
  requestTimeout?: string;
  backend?: string;
  profile?: boolean;
}

/** `typed(key)`: the flag was given on the command line (--request-timeout has a default). */
export function checkEndpointFlags(flags: EndpointFlags, overrides: readonly SettingOverride[], typed: (key: keyof EndpointFlags) => boolean): void {
  if (flags.endpoint === undefined) {
    const stray = (['model', 'apiKeyEnv', 'maxConcurrency', 'requestTimeout'] as const).find(typed);
    if (stray) {
      const hint = stray === 'model' ? "; the bundled engine's model is --set model=..." : '';
      throw new UserError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --endpoint URL (it is about a server${hint})`);
    }
    return;
  }
  if (flags.backend !== undefined || flags.profile) throw new UserError(`--${flags.backend !== undefined ? 'backend' : 'profile'}: set by the server when --endpoint is given`);
  const owned = overrides.filter((o) => serverOwnedKey(o.key));
  if (owned.length > 0) {
    throw new UserError(`--set ${owned.map((o) => o.key).join(', ')}: set by the server when --endpoint is given (change it where the server is started); only workload.*, warmup, repeats and slo.* apply`);
  }
  positive(flags.maxConcurrency, '--max-concurrency', true);
  positive(flags.requestTimeout, '--request-timeout', false);
}

/**
 * A preset's settings under --endpoint: its workload applies, what the server owns is left to
 * the server (seed-003's preset names the sim, a device and gpt2 beside its workload).
 */
export function presetForEndpoint(overrides: readonly SettingOverride[]): { kept: SettingOverride[]; dropped: string[] } {
  return { kept: overrides.filter((o) => !serverOwnedKey(o.key)), dropped: overrides.filter((o) => serverOwnedKey(o.key)).map((o) => o.key) };
}

/** A lab that sweeps a setting the server owns compares server configurations: one server cannot. */
export function checkEndpointLab(lab: { name: string; sweep: { key: string } | null }): void {
  if (lab.sweep && serverOwnedKey(lab.sweep.key)) {
    throw new UserError(
      `lab ${lab.name} sweeps ${lab.sweep.key}, which the server sets: it cannot run with --endpoint (start a server per value and run a single-run lab against each, or pick a lab that sweeps workload.*)`,
    );
  }
}

function positive(text: string | undefined, flag: string, integer: boolean): number | null {
  if (text === undefined) return null;
  // Number() read --request-timeout 0x10 as 16 and 1e3 as 1000: a decimal number, as typed.
  const value = plainNumber(text);
  if (value === null || value <= 0 || (integer && !Number.isInteger(value))) throw new UserError(`${flag} ${text}: expected a ${integer ? 'whole' : 'decimal'} number > 0`);
  return value;
}

/** Parses the URL, asks the server who it is; every failure is one line (a UserError). */
export async function connectEndpoint(flags: EndpointFlags & { endpoint: string }): Promise<EndpointSession> {
  const { parseEndpoint } = await import('../../lab/endpoint/target.ts');
  const { probeServer } = await import('../../lab/endpoint/server-info.ts');
  try {
    const timeout = positive(flags.requestTimeout, '--request-timeout', false);
    const target = parseEndpoint(flags.endpoint, { apiKeyEnv: flags.apiKeyEnv, ...(timeout !== null ? { timeoutMs: timeout * 1000 } : {}) });
    const server = await probeServer(target, flags.model);
    return { target, server, maxConcurrency: positive(flags.maxConcurrency, '--max-concurrency', true) };
  } catch (error) {
    if (error instanceof Error && error.name === 'EndpointError') throw new UserError(error.message);
    throw error;
  }
}
