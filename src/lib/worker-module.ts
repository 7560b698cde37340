/**
 * How a worker thread loads one of Toolgate's modules. Toolgate's TypeScript runs through tsx in
 * tests and tools, whose loader hooks do not reach worker threads (a `.ts` worker fails with
 * ERR_UNKNOWN_FILE_EXTENSION), so from `.ts` sources the worker starts with a line that registers
 * tsx in its own thread and then imports the module; compiled `.js` (`npm start`) is loaded directly.
 *
 * `from` is the caller's `import.meta.url`; `name` the worker module beside it, without extension.
 */
export function workerModule(from: string, name: string): { script: string | URL; eval: boolean } {
  if (!from.endsWith('.ts')) return { script: new URL(`./${name}.js`, from), eval: false };
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const target = JSON.stringify(new URL(`./${name}.ts`, from).href);
  return { script: `import(${tsx}).then((tsx) => { tsx.register(); return import(${target}); });`, eval: true };
}
