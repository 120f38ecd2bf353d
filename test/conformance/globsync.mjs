// Node < 22 has no fs.globSync, which the suite imports (only its
// tier-check command calls it). This loader hook, given to node with
// --import, hands the suite an fs that has one: a stub that says so.
import { register } from 'node:module';
import fs from 'node:fs';

if (typeof fs.globSync !== 'function') {
  const shim =
    "export * from 'node:fs'; import fs from 'node:fs'; export default fs;" +
    "export function globSync() { throw new Error('fs.globSync needs Node 22 (only tier-check uses it)'); }";
  const hooks = `
    const shim = ${JSON.stringify('data:text/javascript,' + encodeURIComponent(shim))};
    export async function resolve(specifier, context, next) {
      if ((specifier === 'fs' || specifier === 'node:fs') && !context.parentURL?.startsWith('data:')) {
        return { url: shim, shortCircuit: true };
      }
      return next(specifier, context);
    }`;
  register('data:text/javascript,' + encodeURIComponent(hooks));
}
