// `node --import ./record-imports.mjs ...`: appends every module URL the program loads to
// $LLMKB_IMPORT_LOG (used to check what `llmkb --help` loads).
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
    import { appendFileSync } from 'node:fs';
    export async function resolve(specifier, context, next) {
      const result = await next(specifier, context);
      appendFileSync(process.env.LLMKB_IMPORT_LOG, result.url + '\\n');
      return result;
    }
  `)}`,
);
