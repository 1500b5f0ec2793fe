/** Importing a module the user's config names (its `methods` or `providers`): a file path, never a package name. */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LlmkbError } from '../errors.js';

/**
 * The exports of the module at `path` (relative paths from `baseDir`), with its resolved file; a
 * module that cannot be imported is a user error naming the file, what it was meant to hold, and `hint`.
 */
export async function importUserModule(
  path: string,
  baseDir: string,
  holds: string,
  hint: string,
): Promise<{ file: string; exports: Record<string, unknown> }> {
  const file = isAbsolute(path) ? path : resolve(baseDir, path);
  try {
    return { file, exports: (await import(pathToFileURL(file).href)) as Record<string, unknown> };
  } catch (error) {
    throw new LlmkbError(`cannot load the ${holds} module ${file}: ${error instanceof Error ? error.message : String(error)}`, { hint });
  }
}
