/**
 * The most characters of one text a page shows (a report, a viewer page): a longer one (a 5 MB run
 * name, a 10 MB question) is cut there with a visible marker, so a page stays a page.
 */
export const SHOWN_CHARACTERS = 20_000;

/** `text`, or its first `max` characters and `… (N more characters)`. */
export function shownText(text: string, max = SHOWN_CHARACTERS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
