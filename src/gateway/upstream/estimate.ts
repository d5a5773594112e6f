/**
 * The upstream calls an operation will make, estimated before it runs from its document, its
 * arguments and what the credential's live directory holds, with each field's declared cost
 * (upstream/cost.ts). It is an upper bound of the calls the resolvers make as they are written:
 *
 * - a field's `each` calls count once per item of every list above it (so `channels { topics }`
 *   costs one call per channel), each alias and each fragment spread separately;
 * - a `perBatch` call counts once per group of parents that arrive together: the items of one
 *   upstream answer resolve in the same tick and share a DataLoader batch, but the items under a
 *   field that calls once per item arrive apart;
 * - a `once` value counts once per operation, whatever selects it;
 * - a field the directory answers is free while the directory is warm;
 * - a list holds what its slicing argument says, else the directory's count, else its assumed size.
 *
 * Not counted: the server's feature level (fetched once per gateway, without credentials), and a
 * subscription's root fields (its queue): a subscription's estimate is what one event's payload costs. A field whose parent is null, or a list shorter than its bound,
 * makes fewer calls than estimated; a mutation is estimated with the directory cold (a write fences it).
 */
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isListType,
  isObjectType,
  Kind,
  typeFromAST,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { costOf, DEFAULT_LIST_SIZE, type DirectoryCount, type ListSize } from './cost.js';

/** The credential's live directory, when it is warm: what it counts. */
export type WarmDirectory = Readonly<Record<DirectoryCount, number>>;

export interface EstimateInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  variables?: Readonly<Record<string, unknown>> | null | undefined;
  /** The credential's live directory counts while it is warm; undefined: every lookup goes upstream. */
  directory?: WarmDirectory | undefined;
}

/** Where a selection set is walked: how often its parent resolves, in how many groups. */
interface Scope {
  /** Times the parent object resolves (items of every list above). */
  items: number;
  /** Groups of those that arrive apart (separate upstream answers). */
  groups: number;
  /** List fields of this set sized by the parent (a connection's edges): their size. */
  sized: { fields: readonly string[]; size: number } | undefined;
}

export function estimateUpstreamCalls(input: EstimateInput): number {
  return walkEstimate(input).calls;
}

/** The login attempts an operation makes (fields declaring `login`, each alias and item counted). */
export function estimateLoginAttempts(input: EstimateInput): number {
  return walkEstimate(input).logins;
}

/** An estimate, and what of its input it read besides the document. */
interface Walked {
  calls: number;
  /** Of them, login attempts (anonymous calls charged to the client's address). */
  logins: number;
  /** A variable decided it (a list's bound, `@skip`/`@include`): it holds for these variables only. */
  readVariables: boolean;
  /** Whether the directory was warm changed a field's cost. */
  readWarmth: boolean;
  /** A list was sized by the directory's count. */
  readCounts: boolean;
}

/** What an operation's estimate depends on besides its document: none, the directory's warmth, or its counts. */
type Reads = 'document' | 'warmth' | 'counts';

/** The estimates of one operation, by the state of the directory it reads. */
interface Known {
  reads: Reads;
  calls: Map<string, number>;
}

/**
 * Estimates for one gateway, kept per parsed document (yoga's parse cache hands the same
 * DocumentNode to every request with the same text) and operation name: an operation whose
 * estimate no variable decides is walked once per state of the directory it reads (cold, warm, or
 * its counts), not on every request.
 */
export class UpstreamEstimates {
  /** Per document and operation name; null when its variables decide it (walked every time). */
  readonly #known = new WeakMap<DocumentNode, Map<string, Known | null>>();

  estimate(input: EstimateInput): number {
    let byOperation = this.#known.get(input.document);
    if (!byOperation) this.#known.set(input.document, (byOperation = new Map()));
    const name = input.operationName ?? '';
    const known = byOperation.get(name);
    if (known === null) return estimateUpstreamCalls(input);
    const cached = known?.calls.get(stateKey(known.reads, input.directory));
    if (cached !== undefined) return cached;
    const walked = walkEstimate(input);
    if (walked.readVariables) {
      byOperation.set(name, null);
      return walked.calls;
    }
    const reads: Reads = walked.readCounts ? 'counts' : walked.readWarmth ? 'warmth' : 'document';
    // A directory's counts change as users and channels come and go: only the latest few are kept.
    const calls = known && known.calls.size < MAX_DIRECTORY_STATES ? known.calls : new Map<string, number>();
    calls.set(stateKey(reads, input.directory), walked.calls);
    byOperation.set(name, { reads, calls });
    return walked.calls;
  }
}

const MAX_DIRECTORY_STATES = 8;

function stateKey(reads: Reads, directory: WarmDirectory | undefined): string {
  if (reads === 'document') return '';
  if (!directory) return 'cold';
  return reads === 'warmth' ? 'warm' : `${directory.users} ${directory.channels} ${directory.subscriptions} ${directory.userGroups}`;
}

function walkEstimate(input: EstimateInput): Walked {
  const { schema, document, variables } = input;
  const walked: Walked = { calls: 0, logins: 0, readVariables: false, readWarmth: false, readCounts: false };
  const operation = pickOperation(document, input.operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return walked;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // A write fences the credential's directory (plugins/directory-writes.ts): count it cold.
  const directory = operation.operation === 'mutation' ? undefined : input.directory;
  // A subscription's root fields are the credential's one queue: what one event costs is its payload.
  const perEvent = operation.operation === 'subscription';
  const once = new Map<string, number>();
  let calls = 0;

  const walk = (set: SelectionSetNode, type: GraphQLCompositeType, scope: Scope, isRoot: boolean): void => {
    for (const selection of set.selections) {
      if (selection.directives?.length && selection.directives.some(directiveHoldsVariable)) walked.readVariables = true;
      if (!included(selection, variables)) continue;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment) walk(fragment.selectionSet, conditionType(schema, fragment.typeCondition, type), scope, isRoot);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, conditionType(schema, selection.typeCondition, type), scope, isRoot);
      } else {
        field(selection, type, scope, isRoot);
      }
    }
  };

  const field = (node: FieldNode, parent: GraphQLCompositeType, scope: Scope, isRoot: boolean): void => {
    if (isAbstractType(parent) && !('getFields' in parent)) return; // a union selects only __typename
    const def = (parent as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields()[node.name.value];
    if (!def) return; // __typename, or a meta field
    const cost = perEvent && isRoot ? {} : costOf(def, isRoot);
    if (cost.directory === true && operation.operation !== 'mutation') walked.readWarmth = true;
    const warm = cost.directory === true && directory !== undefined;
    if (cost.byArguments) {
      if (node.arguments?.some((argument) => holdsVariable(argument.value))) walked.readVariables = true;
      if (operation.operation !== 'mutation') walked.readWarmth = true;
      calls += cost.byArguments(argumentsOf(def, node, variables), schema, directory !== undefined) * scope.items;
    }
    if (cost.login) walked.logins += scope.items;
    if (!warm) {
      calls += (cost.each ?? 0) * scope.items + (cost.perBatch ?? 0) * scope.groups;
      if (cost.once) once.set(cost.once.key, Math.max(once.get(cost.once.key) ?? 0, cost.once.calls));
    }
    const isList = isListType(getNullableType(def.type));
    const sizedByParent = scope.sized?.fields.includes(node.name.value) ? scope.sized.size : undefined;
    const size = listSize(cost.size, def, node, variables, directory, walked);
    const ownSize = isList && !cost.size?.sizedFields ? (sizedByParent ?? size) : 1;
    const items = scope.items * ownSize;
    // Each resolution that calls upstream answers on its own: what it returns forms its own group.
    const groups = (!warm && (cost.each ?? 0) > 0) || cost.byArguments ? scope.items : scope.groups;
    const named = getNamedType(def.type);
    if (!node.selectionSet || !('getFields' in named || isAbstractType(named))) return;
    const sized = cost.size?.sizedFields ? { fields: cost.size.sizedFields, size } : undefined;
    walk(node.selectionSet, named as GraphQLCompositeType, { items, groups, sized }, false);
  };

  walk(operation.selectionSet, root, { items: 1, groups: 1, sized: undefined }, true);
  for (const value of once.values()) calls += value;
  walked.calls = calls;
  return walked;
}

/** Whether a directive's arguments hold a variable. */
function directiveHoldsVariable(directive: DirectiveNode): boolean {
  return directive.arguments?.some((argument) => holdsVariable(argument.value)) ?? false;
}

/** Whether a value is, or holds, a variable. */
function holdsVariable(value: ValueNode): boolean {
  switch (value.kind) {
    case Kind.VARIABLE:
      return true;
    case Kind.LIST:
      return value.values.some(holdsVariable);
    case Kind.OBJECT:
      return value.fields.some((field) => holdsVariable(field.value));
    default:
      return false;
  }
}

function pickOperation(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return name ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined;
}

function conditionType(schema: GraphQLSchema, condition: { name: { value: string } } | undefined, fallback: GraphQLCompositeType): GraphQLCompositeType {
  if (!condition) return fallback;
  const type = typeFromAST(schema, { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: condition.name.value } });
  return type && (isObjectType(type) || isAbstractType(type)) ? type : fallback;
}

/** `@skip` and `@include`, as execution applies them. */
function included(node: SelectionSetNode['selections'][number], variables: EstimateInput['variables']): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables ?? {})?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, variables ?? {})?.if !== false;
  } catch {
    return true; // a bad variable fails execution anyway; count the field
  }
}

function argumentsOf(def: GraphQLField<unknown, unknown>, node: FieldNode, variables: EstimateInput['variables']): Record<string, unknown> {
  try {
    return getArgumentValues(def, node, variables ?? {});
  } catch {
    return {};
  }
}

/** A list's size: its slicing argument (which `walked` notes when a variable gives it), else the directory's count, else assumed. */
function listSize(
  size: ListSize | undefined,
  def: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: EstimateInput['variables'],
  directory: EstimateInput['directory'],
  walked: Walked,
): number {
  if (size?.slicingArguments?.length) {
    if (node.arguments?.some((argument) => size.slicingArguments!.includes(argument.name.value) && holdsVariable(argument.value))) walked.readVariables = true;
    const args = argumentsOf(def, node, variables);
    for (const name of size.slicingArguments) {
      const value = args[name];
      if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, value);
      if (Array.isArray(value)) return value.length;
    }
  }
  if (size?.directory && directory) {
    walked.readCounts = true;
    return directory[size.directory];
  }
  if (size?.directory) walked.readCounts = true; // cold: a warm directory would size it
  return size?.assumedSize ?? DEFAULT_LIST_SIZE;
}
