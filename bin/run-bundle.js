// Runs the start-up bundle (bin/bundle.js) with a V8 code cache of its own.
// Node's compile cache (module.enableCompileCache) saves what V8 compiled *before* a module
// ran, which is little: V8 compiles most functions when they are first called, so every
// start compiled again the ~1,500 functions between launch and a drawn card. vm.Script can
// save its code cache *after* the program ran, with those functions in it: `kb review`
// starts ~50 ms sooner. A cache per command (each runs different code), per Node version,
// saved once (V8 rejects a cache that does not match: it is then made again), ignored if
// anything about it fails: a cache only ever saves time.
import module from 'node:module';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import vm from 'node:vm';

/** When the code cache is taken: once the start is over, and before bytecode of the start could be let go. */
const SAVE_AFTER_MS = 2_000;

/** The command of `kb [--kb DIR] <command> ...`, as a name for its cache. */
export function commandName(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--kb') i++;
    else if (!args[i].startsWith('-')) return /^[a-z][a-z-]*$/.test(args[i]) ? args[i] : 'other';
  }
  return 'none';
}

export function codeCachePath(bundle, args) {
  return `${bundle}.${commandName(args)}.${process.version}.cache`;
}

function readCache(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function saveOnce(script, path) {
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    try {
      const staging = `${path}.${process.pid}`;
      writeFileSync(staging, script.createCachedData());
      renameSync(staging, path); // whole or not at all, with other kb processes about
    } catch {
      // not writable here: the next start compiles as this one did
    }
  };
  setTimeout(save, SAVE_AFTER_MS).unref();
  process.once('exit', save);
}

/**
 * Node calls the loader option below experimental, in a warning printed the first time the
 * bundle import()s a package left outside it (kb optimize's FSRS binding): a line about how kb
 * is built, not for its user, so that one is dropped; every other warning is printed.
 */
function dropLoaderWarning() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (typeof text === 'string' && text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    return emitWarning.call(process, warning, ...rest);
  };
}

/** Runs the bundle at `bundle` (a CommonJS file) as Node would, with its code cache. */
export function runBundle(bundle, args = process.argv.slice(2)) {
  dropLoaderWarning();
  const cachePath = codeCachePath(bundle, args);
  const cachedData = readCache(cachePath);
  const wrapper = '(function (exports, require, module, __filename, __dirname) {';
  const script = new vm.Script(`${wrapper}${readFileSync(bundle, 'utf8')}\n})`, {
    filename: bundle,
    // Stack traces point into the bundle's own lines and columns, not the wrapper's.
    columnOffset: -wrapper.length,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cachedData === undefined || script.cachedDataRejected) saveOnce(script, cachePath);
  const moduleObject = { exports: {} };
  script.runInThisContext().call(moduleObject.exports, moduleObject.exports, module.createRequire(bundle), moduleObject, bundle, dirname(bundle));
}
