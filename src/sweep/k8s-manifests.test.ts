/**
 * The manifests of `sweep --k8s` against the batch/v1 Job API: every field they use, with its
 * name and type as the API reference gives them (Job, JobSpec, PodTemplateSpec, PodSpec,
 * Container, EnvVar, ResourceRequirements, VolumeMount, Volume), written out by hand since no
 * cluster is at hand; unknown fields are refused, as `kubectl apply --validate=strict` does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { LlmkbError } from '../errors.js';
import { k8sManifests, memoryQuantity, timeSeconds } from './k8s-manifests.js';

const int32 = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);
const int64 = z.number().int().min(0);
const dns1123Label = z
  .string()
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
const labelValue = z
  .string()
  .max(63)
  .regex(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/);
const labelKey = z.string().regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/);
/** resource.Quantity, as a string. */
const quantity = z.string().regex(/^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/);
const objectMeta = z
  .object({
    name: dns1123Label.optional(),
    namespace: dns1123Label.optional(),
    labels: z.record(labelKey, labelValue).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  })
  .strict();
const envVar = z.object({ name: z.string().regex(/^[-._a-zA-Z][-._a-zA-Z0-9]*$/), value: z.string().optional() }).strict();
const resources = z.object({ requests: z.record(z.string(), quantity).optional(), limits: z.record(z.string(), quantity).optional() }).strict();
const volumeMount = z
  .object({ name: dns1123Label, mountPath: z.string().startsWith('/'), readOnly: z.boolean().optional(), subPath: z.string().optional() })
  .strict();
const container = z
  .object({
    name: dns1123Label,
    image: z.string().min(1),
    command: z.array(z.string()).optional(),
    args: z.array(z.string()).optional(),
    workingDir: z.string().optional(),
    env: z.array(envVar).optional(),
    resources: resources.optional(),
    volumeMounts: z.array(volumeMount).optional(),
  })
  .strict();
const volume = z
  .object({ name: dns1123Label, persistentVolumeClaim: z.object({ claimName: dns1123Label, readOnly: z.boolean().optional() }).strict() })
  .strict();
const podSpec = z
  .object({
    restartPolicy: z.enum(['Always', 'OnFailure', 'Never']),
    activeDeadlineSeconds: int64.min(1).optional(),
    containers: z.array(container).min(1),
    volumes: z.array(volume).optional(),
    nodeSelector: z.record(z.string(), z.string()).optional(),
    serviceAccountName: z.string().optional(),
  })
  .strict();
const jobSpec = z
  .object({
    parallelism: int32.optional(),
    completions: int32.optional(),
    completionMode: z.enum(['NonIndexed', 'Indexed']).optional(),
    backoffLimit: int32.optional(),
    backoffLimitPerIndex: int32.optional(),
    maxFailedIndexes: int32.optional(),
    activeDeadlineSeconds: int64.optional(),
    ttlSecondsAfterFinished: int32.optional(),
    suspend: z.boolean().optional(),
    template: z.object({ metadata: objectMeta.optional(), spec: podSpec }).strict(),
  })
  .strict()
  // The API's own checks: per-index back-off needs Indexed completion and pods that are not restarted in place.
  .refine(
    (s) => s.backoffLimitPerIndex === undefined || (s.completionMode === 'Indexed' && s.template.spec.restartPolicy === 'Never'),
    'backoffLimitPerIndex needs completionMode: Indexed and restartPolicy: Never',
  )
  .refine((s) => s.completionMode !== 'Indexed' || (s.completions !== undefined && s.completions >= 1), 'an Indexed Job needs completions')
  .refine((s) => s.template.spec.restartPolicy !== 'Always', "a Job's pods restart OnFailure or Never");
const job = z
  .object({ apiVersion: z.literal('batch/v1'), kind: z.literal('Job'), metadata: objectMeta.extend({ name: dns1123Label }), spec: jobSpec })
  .strict();

function parse(text: string): z.infer<typeof job> {
  const docs = parseAllDocuments(text);
  assert.equal(docs.length, 1);
  const checked = job.safeParse(docs[0]!.toJS());
  assert.ok(checked.success, checked.success ? '' : JSON.stringify(checked.error.issues, null, 2));
  return checked.data;
}

const base = {
  name: 'Two Models (paper)',
  studyFile: '/home/me/study/study.yaml',
  studyDir: '/home/me/study',
  resultsDir: '/home/me/study/results',
  count: 3,
  sweepArgs: ['--limit', '6'],
};

describe('sweep --k8s manifests', () => {
  it('an Indexed Job of the shards and a merge Job, valid batch/v1 Jobs', () => {
    const m = k8sManifests(
      base,
      { image: 'registry.example/llmkb:0.1', claim: 'study-pvc', namespace: 'evals', retries: 2, parallelism: 2 },
      { gpus: 1, cpus: 8, mem: '64G', time: '12:00:00', setup: ['. /opt/venv/bin/activate'] },
      undefined,
    );
    const shards = parse(m.shards);
    assert.equal(shards.metadata.name, 'llmkb-two-models-paper-shards');
    assert.equal(shards.metadata.namespace, 'evals');
    assert.equal(shards.spec.completionMode, 'Indexed');
    assert.equal(shards.spec.completions, 3);
    assert.equal(shards.spec.parallelism, 2);
    assert.equal(shards.spec.backoffLimitPerIndex, 2);
    const pod = shards.spec.template.spec;
    assert.equal(pod.activeDeadlineSeconds, 12 * 3600);
    const c = pod.containers[0]!;
    assert.equal(c.image, 'registry.example/llmkb:0.1');
    assert.deepEqual(c.env, [{ name: 'LLMKB_SHARD_COUNT', value: '3' }]);
    assert.deepEqual(c.resources, { requests: { cpu: '8', memory: '64Gi', 'nvidia.com/gpu': '1' }, limits: { memory: '64Gi', 'nvidia.com/gpu': '1' } });
    assert.deepEqual(c.volumeMounts, [{ name: 'study', mountPath: '/work' }]);
    assert.deepEqual(pod.volumes, [{ name: 'study', persistentVolumeClaim: { claimName: 'study-pvc' } }]);
    const script = c.command![2]!;
    assert.match(script, /^\. \/opt\/venv\/bin\/activate\n/);
    assert.match(script, /dir=\/work\/results\/shards\/shard-\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)-of-3\n/);
    assert.match(script, /exec llmkb --store "\$dir\/store\.sqlite" sweep \/work\/study\.yaml --shard auto --out "\$dir" --limit 6\n$/);
    const merge = parse(m.merge);
    assert.equal(merge.metadata.name, 'llmkb-two-models-paper-merge');
    assert.equal(merge.spec.completionMode, undefined);
    assert.equal(merge.spec.backoffLimit, 0);
    assert.equal(merge.spec.template.spec.containers[0]!.resources, undefined, 'the merge needs no GPU');
    assert.match(
      merge.spec.template.spec.containers[0]!.command![2]!,
      /exec llmkb --store \/work\/results\/store\.sqlite sweep \/work\/study\.yaml --merge-shards --shard-count 3 --out \/work\/results\n$/,
    );
  });

  it("a long study name still makes names of at most 63 characters; the flag's image wins; no resources, no resources field", () => {
    const m = k8sManifests(
      { ...base, name: 'x'.repeat(200), count: 1 },
      { image: 'a', claim: 'c', mountPath: '/data', study: '/data/s/study.yaml' },
      {},
      'registry/other:2',
    );
    const shards = parse(m.shards);
    assert.ok(shards.metadata.name.length <= 63);
    assert.equal(shards.spec.template.spec.containers[0]!.image, 'registry/other:2');
    assert.equal(shards.spec.template.spec.containers[0]!.resources, undefined);
    assert.equal(shards.spec.backoffLimitPerIndex, 1);
    assert.match(shards.spec.template.spec.containers[0]!.command![2]!, /dir=\/data\/s\/results\/shards\//);
  });

  it('refuses without an image or a claim, saying where to give them', () => {
    assert.throws(
      () => k8sManifests(base, undefined, {}, undefined),
      (e: unknown) =>
        e instanceof LlmkbError &&
        /needs the container image and the PersistentVolumeClaim/.test(e.message) &&
        /cluster: \{ kubernetes: \{ image/.test(e.hint!),
    );
  });

  it('converts Slurm sizes and time limits', () => {
    assert.equal(memoryQuantity('64G'), '64Gi');
    assert.equal(memoryQuantity('512'), '512Mi');
    assert.equal(timeSeconds('90'), 5400);
    assert.equal(timeSeconds('90:30'), 5430);
    assert.equal(timeSeconds('1:00:00'), 3600);
    assert.equal(timeSeconds('2-00:00:00'), 172800);
    assert.equal(timeSeconds('1-12'), 129600);
  });
});
