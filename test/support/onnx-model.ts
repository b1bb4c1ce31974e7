// Tiny speaker-embedding models in the WeSpeaker ONNX format, built at test time with the
// onnx.proto encoding of onnx-proto, so the adapter is tested against onnxruntime without a
// downloaded model. The default graph is statistics pooling with a fixed projection:
//
//   feats [1, T, 80] -> feats * feats -> mean over T -> log -> MatMul W [80, D] -> embs [1, D]
//
// The adapter mean-normalises the features over time, so a plain mean over time would be zero for
// every input; the mean square (the variance of each band) is what carries the voice here. W is a
// fixed pseudo-random matrix with zero-mean columns, so a constant offset of the log variances
// (loudness) does not move the embedding.
import fs from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export interface TestModelOptions {
  /** Input name (default `feats`, as WeSpeaker). */
  inputName?: string;
  /** Input shape; strings are free dimensions (default [1, 'T', 80]). */
  inputShape?: Array<number | string>;
  /** Output name (default `embs`). */
  outputName?: string;
  /** Embedding size D (default 32). */
  dimension?: number;
  /** A second, unused input, as in models that also take lengths. */
  extraInput?: string;
  /** Model metadata (sherpa-onnx puts framework, sample_rate, normalize_samples, output_dim here). */
  metadata?: Record<string, string>;
  /** The feature layout [1, 80, T]: pooling over axis 2. */
  featuresFirst?: boolean;
}

/** Deterministic N(0,1)-ish numbers (xorshift32 + Box-Muller). */
function pseudoRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** The projection [80 x D] of the default model, row-major, columns with zero mean. */
export function projectionMatrix(featureDim: number, dimension: number, seed = 7): Float32Array {
  const next = pseudoRandom(seed);
  const w = new Float32Array(featureDim * dimension);
  for (let i = 0; i < w.length; i++) w[i] = next();
  for (let d = 0; d < dimension; d++) {
    let mean = 0;
    for (let f = 0; f < featureDim; f++) mean += w[f * dimension + d];
    mean /= featureDim;
    for (let f = 0; f < featureDim; f++) w[f * dimension + d] -= mean;
  }
  return w;
}

function valueInfo(name: string, shape: Array<number | string>) {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: onnx.TensorProto.DataType.FLOAT,
        shape: onnx.TensorShapeProto.create({
          dim: shape.map((d) => (typeof d === 'number' ? onnx.TensorShapeProto.Dimension.create({ dimValue: d }) : onnx.TensorShapeProto.Dimension.create({ dimParam: d }))),
        }),
      }),
    }),
  });
}

/** The serialized model. */
export function buildTestModel(opts: TestModelOptions = {}): Uint8Array {
  const inputName = opts.inputName ?? 'feats';
  const outputName = opts.outputName ?? 'embs';
  const dimension = opts.dimension ?? 32;
  const featuresFirst = opts.featuresFirst ?? false;
  const inputShape = opts.inputShape ?? (featuresFirst ? [1, 80, 'T'] : [1, 'T', 80]);
  const featureDim = Number(featuresFirst ? inputShape[1] : inputShape[2]) || 80;
  const w = projectionMatrix(featureDim, dimension);
  const graph = onnx.GraphProto.create({
    name: 'test-speaker-embedding',
    node: [
      onnx.NodeProto.create({ opType: 'Mul', input: [inputName, inputName], output: ['squares'] }),
      onnx.NodeProto.create({
        opType: 'ReduceMean',
        input: ['squares'],
        output: ['pooled'],
        attribute: [
          onnx.AttributeProto.create({ name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [featuresFirst ? 2 : 1] }),
          onnx.AttributeProto.create({ name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 }),
        ],
      }),
      // A floor keeps log finite for an all-zero input (the adapter's probe run).
      onnx.NodeProto.create({ opType: 'Add', input: ['pooled', 'floor'], output: ['floored'] }),
      onnx.NodeProto.create({ opType: 'Log', input: ['floored'], output: ['logvar'] }),
      onnx.NodeProto.create({ opType: 'MatMul', input: ['logvar', 'W'], output: [outputName] }),
    ],
    initializer: [
      onnx.TensorProto.create({ name: 'W', dims: [featureDim, dimension], dataType: onnx.TensorProto.DataType.FLOAT, floatData: Array.from(w) }),
      onnx.TensorProto.create({ name: 'floor', dims: [1], dataType: onnx.TensorProto.DataType.FLOAT, floatData: [1e-6] }),
    ],
    input: [valueInfo(inputName, inputShape), ...(opts.extraInput ? [valueInfo(opts.extraInput, [1])] : [])],
    output: [valueInfo(outputName, [1, dimension])],
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'call-analysis-service tests',
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: 13 })],
    graph,
    metadataProps: Object.entries(opts.metadata ?? {}).map(([key, value]) => onnx.StringStringEntryProto.create({ key, value })),
  });
  return onnx.ModelProto.encode(model).finish();
}

/** Writes the model to `dir/name` and returns the path. */
export function writeTestModel(dir: string, name: string, opts: TestModelOptions = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, buildTestModel(opts));
  return file;
}
