// One entry point for "which model": a named config with seeded synthetic weights, or a
// Hugging Face GPT-2 folder (config.json + model.safetensors).

import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadHfConfig, namedConfig, type ModelConfig } from './model-config.ts';
import { readSafetensorsWeights } from './safetensors.ts';
import { checkConfigAgainstHeader, readSafetensorsHeader } from './safetensors-header.ts';
import { syntheticWeights, type Weights } from './weights.ts';

export interface LoadedModel {
  config: ModelConfig;
  weights: Weights;
  /** "synthetic weights (seed 0)" or the safetensors path. */
  source: string;
}

export function loadModel(options: { model?: string; weightsDir?: string; seed?: number }): LoadedModel {
  if (options.weightsDir !== undefined) return loadHfModelDir(options.weightsDir);
  const config = namedConfig(options.model ?? 'gpt2-tiny');
  const seed = options.seed ?? 0;
  return { config, weights: syntheticWeights(config, seed), source: `synthetic weights (seed ${seed})` };
}

export function loadHfModelDir(dir: string): LoadedModel {
  const config = hfModelConfig(dir);
  const weightsPath = join(dir, 'model.safetensors');
  return { config, weights: readSafetensorsWeights(weightsPath, config), source: weightsPath };
}

/**
 * A Hugging Face GPT-2 folder's config, checked against the tensors its model.safetensors
 * declares (only the header is read): what the engine sizes its pool and weights from.
 */
export function hfModelConfig(dir: string): ModelConfig {
  const configPath = join(dir, 'config.json');
  const weightsPath = join(dir, 'model.safetensors');
  // A file or a missing path read "<dir>/config.json: not found", as if the folder lacked it.
  const what = statSync(dir, { throwIfNoEntry: false });
  if (what === undefined) throw new Error(`${dir}: no such folder (a weights folder holds config.json and model.safetensors)`);
  if (!what.isDirectory()) throw new Error(`${dir}: is a file, not a folder (a weights folder holds config.json and model.safetensors)`);
  for (const path of [configPath, weightsPath]) {
    if (!existsSync(path)) throw new Error(`${path}: not found (a weights folder holds config.json and model.safetensors)`);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(configPath, 'utf8'));
  } catch (error) {
    // JSON.parse quotes the text it stopped in, newlines and all: one line, as every error is.
    throw new Error(`${configPath}: not valid JSON (${(error as Error).message.replace(/\s+/g, ' ')})`);
  }
  let config: ModelConfig;
  try {
    config = loadHfConfig(json, basename(dir));
  } catch (error) {
    throw new Error(`${configPath}: ${(error as Error).message.replace(/^config\.json: /, '')}`);
  }
  checkConfigAgainstHeader(config, readSafetensorsHeader(weightsPath), configPath);
  return config;
}
