/** Shared by the paper-scale bench and its server: which answer a synthetic seen question accepts. */
export function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

export function rightAnswer(question: string): string {
  return `w${hash(question) % 9973}`;
}
