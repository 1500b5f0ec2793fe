/**
 * `~` in a path from a config file (`"store": "~/llmkb/llmkb.sqlite"`): the user's home folder,
 * as a shell would expand it. Node does not, and `~` would otherwise become a folder named `~`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `~` and `~/...` become the home folder and a path in it; `~user` and any other path are kept. */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? join(home, path.slice(2)) : path;
}
