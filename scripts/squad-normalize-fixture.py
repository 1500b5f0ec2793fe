#!/usr/bin/env python3
"""Writes src/text/fixtures/squad-normalize.jsonl.gz: [input, output] pairs of the official
SQuAD v1.1 evaluation script's normalize_answer (Rajpurkar et al. 2016), copied verbatim below,
for every gold answer in the shared data (NQ-open, TriviaQA, PopQA, EVOUNA golds) and every
EVOUNA response, plus a few synthetic edge cases (Unicode white space, final sigma, dotted I,
combining marks next to articles). src/text/normalize-answer.test.ts checks that llmkb's
normalizeAnswer gives the same output byte for byte.

  python3 scripts/squad-normalize-fixture.py        # reads $LLMKB_DATA_DIR or ../shared/data

The first line of the fixture records the Python and Unicode versions: Python's str.lower(), \\w
and str.split() follow its own Unicode tables (3.11: Unicode 14.0), Node's follow ICU's, so only
characters assigned after that version could ever differ.
"""
import ast
import csv
import gzip
import json
import os
import re
import string
import sys
import unicodedata


def normalize_answer(s):
    """Lower text and remove punctuation, articles and extra whitespace. (SQuAD v1.1 evaluate-v1.1.py)"""
    def remove_articles(text):
        return re.sub(r'\b(a|an|the)\b', ' ', text)

    def white_space_fix(text):
        return ' '.join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return ''.join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
data = os.environ.get('LLMKB_DATA_DIR') or os.path.join(root, '..', 'shared', 'data')
out = os.path.join(root, 'src', 'judging', 'fixtures', 'squad-normalize.jsonl.gz')

strings = []


def add(value):
    if isinstance(value, str):
        strings.append(value)
    elif isinstance(value, list):
        for v in value:
            add(v)


def path(name):
    p = os.path.join(data, name)
    if not os.path.exists(p):
        sys.exit(f'{p} not found: set LLMKB_DATA_DIR to the folder with the shared data')
    return p


for name in ('NQ-open.dev.jsonl', 'NQ-open.efficientqa.dev.1.1.jsonl'):
    for line in open(path(name), encoding='utf-8'):
        if line.strip():
            add(json.loads(line)['answer'])
for name in ('nq_open_dpr_dev.topics.nq.dev.tsv', 'triviaqa_open_dev.topics.dpr.trivia.dev.tsv', 'triviaqa_open_test.topics.dpr.trivia.test.tsv'):
    with open(path(name), encoding='utf-8', newline='') as f:
        for row in csv.reader(f, delimiter='\t'):
            if len(row) >= 2:
                add(ast.literal_eval(row[1]))
for name in ('popqa_longtail.ctrla.jsonl', 'triviaqa_test_subset1000.ctrla.jsonl'):
    for line in open(path(name), encoding='utf-8'):
        if line.strip():
            add(json.loads(line)['answers'])
popqa = json.load(open(path('popqa_dev1000_test1000.model_collaboration.json'), encoding='utf-8'))
for split in ('dev', 'test'):
    for x in popqa.get(split, []):
        add(json.loads(x['output']))
for name in ('NQ.json', 'TQ.json'):
    for x in json.load(open(path(os.path.join('evouna', name)), encoding='utf-8')):
        gold = x['golden_answer']
        add(gold)
        if isinstance(gold, str):
            add([a.strip() for a in gold.split('/')])  # as the EVOUNA check reads a "/"-separated gold
        for key, value in x.items():
            if key.startswith('answer_') and value is not None:
                add(str(value))

# Edge cases the data may not contain: Unicode white space that str.split() knows and JS \s does
# not (and the reverse: U+FEFF), final sigma, dotted capital I, articles next to combining marks,
# non-Latin letters and digits around articles, the underscore.
add([
    'Saldaña', 'A\u00f1a', 'the\u00e9', '\u00e9the', 'the\u0301 end', 'a\u0308 b', 'an\u0663', '\u0663an', 'the_end', 'a_', '_a',
    '\u0130stanbul', '\u0130 A', 'I\u0307', 'ΟΔΥΣΣΕΥΣ', 'ΑΣ.', 'Σ', 'ΑΣ\u0301', 'ΑΣ\u0301Β', 'AΣ', "A'Σ", 'ΣΑ', 'a\u00adΣ',
    'x\x1cy\x1dz\x1e_\x1fw', 'a\x85b', '\u00a0the\u00a0end\u00a0', 'the\ufeffend', '\ufeff a', 'x\u200by', 'a\u2028b\u2029c', 'a\u3000the\u205fb',
    '\u1680a\u180eb', 'The Ⅻ a', 'ꓐa', '𝐀 a 𝐀', 'a𝟘', '\U0001F600 a \U0001F600', 'An ǅ', 'ǅan', 'ß', 'ẞ', 'ﬁ', 'ŉ', 'İİ', 'K',
])

seen = set()
pairs = []
for s in strings:
    if s not in seen:
        seen.add(s)
        pairs.append([s, normalize_answer(s)])
with gzip.GzipFile(out, 'wb', compresslevel=9, mtime=0) as f:
    head = {'python': sys.version.split()[0], 'unicode': unicodedata.unidata_version, 'pairs': len(pairs), 'data': 'NQ-open, TriviaQA, PopQA golds; EVOUNA golds and responses'}
    f.write((json.dumps(head, ensure_ascii=False) + '\n').encode('utf-8'))
    for p in pairs:
        f.write((json.dumps(p, ensure_ascii=False) + '\n').encode('utf-8'))
print(f'{len(pairs)} distinct strings -> {os.path.relpath(out, root)} ({os.path.getsize(out)} bytes)')
