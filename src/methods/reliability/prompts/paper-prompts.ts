/**
 * The paper's prompts, verbatim (Zheng, Lapata & Pan, Tables 5-8), so results are comparable with
 * the paper. Typos in the originals ("quesetion", "Seperate") are in the placeholders or kept as
 * published; only the placeholders are filled in.
 */

/** Table 5: detecting time-sensitive questions (SeenQA step 2). */
export const TIME_SENSITIVE_PROMPT_HEAD = `INSTRUCTION: Please provide the index of questions whose answers change yearly. Just return the index without explanations.

Here is the list of questions:

1. Who is the most paid player in EPL?
2. What is the capital of Louisiana?
3. Who won the Nobel Peace Prize in 2009?
4. What is the latest model of the iPhone currently available?

Index:

1, 4

Here is the list of questions:

`;

export function timeSensitivePrompt(questions: readonly string[]): string {
  return `${TIME_SENSITIVE_PROMPT_HEAD}${questions.map((q, i) => `${i + 1}. ${q}`).join('\n')}\n\nIndex:\n\n`;
}

/** Table 6: the QA instruction line. */
export const QA_INSTRUCTION =
  'INSTRUCTION: Please answer knowledge-related questions directly. Note: Please do not give anything other than the answer; Say "unsure" if you do not know.';

/** Table 6 caption: the instruction line of the MCQ re-asking prompts (consistency). */
export const MCQ_INSTRUCTION =
  'INSTRUCTION: Please answer knowledge-related multi-choice questions directly. Note: Please do not give anything other than the appropriate option (A, B, C, D or E); choose the option indicating "unsure" if you do not know.';

export interface Shot {
  question: string;
  answer: string;
}

/**
 * Table 6: the QA prompt. Zero-shot has no shots; four-shot has four from R_seen; four-shot-2
 * has two from R_seen and two from R_unseen answered "unsure" (shots in random order).
 */
export function qaPrompt(question: string, shots: readonly Shot[] = [], instruction = QA_INSTRUCTION): string {
  const lines = [instruction];
  for (const shot of shots) lines.push(`QUESTION: ${shot.question}`, `ANSWER: ${shot.answer}`);
  lines.push(`QUESTION: ${question}`, 'ANSWER:');
  return lines.join('\n');
}

/** Table 7: does a prediction match the ground truth? (judge LLM; Sun et al. 2023). */
export function judgePrompt(question: string, groundTruth: readonly string[], prediction: string): string {
  return `INSTRUCTION: You need to check whether the prediction of a question-answering system to a question is correct. You should make the judgment based on a list of ground truth answers provided to you. Your response should be "yes" if the prediction is correct or "no" if the prediction is wrong.

Question: Who authored The Taming of the Shrew (published in 2002)?

Ground truth: ["William Shakespeare", "Roma Gill"]

prediction: W Shakespeare

Correctness: yes

Question: What country is Maharashtra Metro Rail Corporation Limited located in?

Ground truth: ["India"]

prediction: Maharashtra

Correctness: no

Question: Edward Tise (known for Full Metal Jacket (1987)) is in what department?

Ground truth: ["sound department"]

Prediction: 2nd Infantry Division, United States Army

Correctness: no

Question: Which era did Michael Oakeshott belong to?

Ground truth: ["20th-century philosophy"]

prediction: 20th century.

Correctness: yes

Question: ${question}

Ground truth: ${JSON.stringify(groundTruth)}

prediction: ${prediction}

Correctness:`;
}

/** Table 8: generating 20 distractors separated by [SEP]. */
export function distractorPrompt(question: string, answer: string): string {
  return `INSTRUCTION: For the given question-answer pair, provide 20 different distractors that are similar yet distinct from the given answer. Note: Seperate the 20 distractors with a special token "[SEP]".

Q: Who was the President of the United States in 2010?

A: Barack Obama

Distractors: George W. Bush [SEP] Bill Clinton [SEP] Ronald Reagan [SEP] Donald Trump [SEP] Jimmy Carter [SEP] George H.W. Bush [SEP] Richard Nixon [SEP] Gerald Ford [SEP] Lyndon B. Johnson [SEP] John F. Kennedy [SEP] Dwight D. Eisenhower [SEP] Harry S. Truman [SEP] Franklin D. Roosevelt [SEP] Herbert Hoover [SEP] Calvin Coolidge [SEP] Woodrow Wilson [SEP] William Howard Taft [SEP] Theodore Roosevelt [SEP] William McKinley [SEP] Grover Cleveland

Q: What is the name of the first cloned sheep?

A: the first cloned sheep is dolly.

Distractors: the first cloned sheep is Polly [SEP] the first cloned sheep is Molly [SEP] the first cloned sheep is Holly [SEP] the first cloned sheep is Bella [SEP] the first cloned sheep is Daisy [SEP] the first cloned sheep is Lily [SEP] the first cloned sheep is Rosie [SEP] the first cloned sheep is Millie [SEP] the first cloned sheep is Ellie [SEP] the first cloned sheep is Sally [SEP] the first cloned sheep is Tilly [SEP] the first cloned sheep is Nelly [SEP] the first cloned sheep is Jolly [SEP] the first cloned sheep is Betty [SEP] the first cloned sheep is Annie [SEP] the first cloned sheep is Lucy [SEP] the first cloned sheep is Maggie [SEP] the first cloned sheep is Cindy [SEP] the first cloned sheep is Penny [SEP] the first cloned sheep is Ginny

Q: ${question}

A: ${answer}

Distractors:`;
}
