/**
 * Bounds every String the gateway could forward, in one place, before execution: a topic of 5 MB
 * in a narrow would otherwise go upstream as a 5 MB URL. Arguments and input fields that carry a
 * topic, a message, a channel name or a channel description are held to the chat server's own
 * limits (`max_topic_length`, `max_message_length`, `max_stream_name_length`,
 * `max_stream_description_length`, learnt from its registration responses and kept on the
 * gateway's UpstreamServer; Zulip's defaults until then), or to TRUNCATED_INPUT_FACTOR times them
 * where Zulip truncates rather than refuses; every other String to MAX_STRING_LENGTH. A string over
 * its bound is refused with BAD_USER_INPUT, naming the argument, and nothing is sent upstream.
 *
 * Checked on the values graphql-js will execute with (literals and variables alike, coerced by
 * graphql's own `getVariableValues`/`getArgumentValues`), after plugins/variables-depth.ts has
 * bounded their nesting. The fields with String arguments are found once per document.
 */
import {
  getArgumentValues,
  getNamedType,
  getNullableType,
  getVariableValues,
  GraphQLString,
  isInputObjectType,
  isListType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { DEFAULT_INPUT_LIMITS, type InputLimits } from '../upstream/input-limits.js';

/** The bound of every String argument not in BOUNDED_INPUTS: the longest text Zulip takes (a message). */
export const MAX_STRING_LENGTH = 10_000;

/**
 * Zulip truncates an overlong topic or message it is sent (send, edit, drafts, scheduled
 * messages) rather than refusing it: up to this many times the limit the gateway forwards such a
 * value and lets the server truncate it as it always does; beyond, it is refused.
 */
export const TRUNCATED_INPUT_FACTOR = 10;

interface Bound {
  limit: keyof InputLimits;
  /** The server truncates, rather than refuses, a longer value. */
  truncated?: true;
}

const topic: Bound = { limit: 'max_topic_length' };
const sentTopic: Bound = { limit: 'max_topic_length', truncated: true };
const content: Bound = { limit: 'max_message_length', truncated: true };
const channelName: Bound = { limit: 'max_stream_name_length' };
const channelDescription: Bound = { limit: 'max_stream_description_length' };

/** The bound of each argument (`Type.field(argument)`) and input field (`Input.field`) that has one. */
const BOUNDED_INPUTS: Readonly<Record<string, Bound>> = {
  'ConversationInput.topic': topic,
  'EventFilterInput.topic': topic,
  'NarrowInput.topic': topic,
  'TypingTarget.topic': topic,
  'Mutation.setTopicVisibility(topic)': topic,
  'DraftInput.topic': sentTopic,
  'Mutation.createScheduledMessage(topic)': sentTopic,
  'Mutation.editMessage(topic)': sentTopic,
  'Mutation.editScheduledMessage(topic)': sentTopic,
  'Mutation.sendMessage(topic)': sentTopic,
  'DraftInput.content': content,
  'Mutation.createScheduledMessage(content)': content,
  'Mutation.editMessage(content)': content,
  'Mutation.editScheduledMessage(content)': content,
  'Mutation.sendMessage(content)': content,
  'NarrowInput.channelName': channelName,
  'SubscribeChannelInput.name': channelName,
  'Mutation.sendMessage(channelName)': channelName,
  'Mutation.unsubscribe(channelNames)': channelName,
  'Mutation.updateSubscriptions(remove)': channelName,
  'Mutation.updateChannel(newName)': channelName,
  'SubscribeChannelInput.description': channelDescription,
  'Mutation.updateChannel(description)': channelDescription,
};

/** A field of the operation that takes String arguments, somewhere in their input types. */
interface Planned {
  node: FieldNode;
  field: GraphQLField<unknown, unknown>;
  coordinate: string;
}

/** Whether an input type holds a String anywhere (input objects followed once). */
function holdsString(type: GraphQLInputType, seen = new Set<string>()): boolean {
  const named = getNamedType(type);
  if (named === GraphQLString) return true;
  if (!isInputObjectType(named) || seen.has(named.name)) return false;
  seen.add(named.name);
  return Object.values(named.getFields()).some((f) => holdsString(f.type, seen));
}

/** The fields of `document` with String-bearing arguments given (operations and fragments). */
function plan(schema: GraphQLSchema, document: DocumentNode): Planned[] {
  const planned: Planned[] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (!field || !parent || !node.arguments?.length) return;
        if (field.args.some((arg: GraphQLArgument) => holdsString(arg.type))) {
          planned.push({ node, field, coordinate: `${parent.name}.${field.name}` });
        }
      },
    }),
  );
  return planned;
}

function codePoints(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** The first String over its bound in `value` (of `type`, at `coordinate`), as an error. */
function overlong(value: unknown, type: GraphQLInputType, coordinate: string, limits: InputLimits): Error | undefined {
  if (value === null || value === undefined) return undefined;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return overlong(value, nullable.ofType, coordinate, limits);
    for (const item of value) {
      const error = overlong(item, nullable.ofType, coordinate, limits);
      if (error) return error;
    }
    return undefined;
  }
  if (isInputObjectType(nullable)) {
    for (const field of Object.values(nullable.getFields())) {
      const error = overlong((value as Record<string, unknown>)[field.name], field.type, `${nullable.name}.${field.name}`, limits);
      if (error) return error;
    }
    return undefined;
  }
  if (nullable !== GraphQLString || typeof value !== 'string') return undefined;
  const bound = BOUNDED_INPUTS[coordinate];
  const max = !bound ? MAX_STRING_LENGTH : limits[bound.limit] * (bound.truncated ? TRUNCATED_INPUT_FACTOR : 1);
  // Code points never outnumber UTF-16 units: only a long string needs counting.
  if (value.length <= max || codePoints(value) <= max) return undefined;
  const why = !bound ? '' : bound.truncated ? ` (${TRUNCATED_INPUT_FACTOR} times the chat server's ${bound.limit})` : ` (the chat server's ${bound.limit})`;
  return badInput(`${coordinate} is longer than ${max} characters${why}.`, { argument: coordinate, maxLength: max });
}

function operationOf(args: ExecutionArgs): OperationDefinitionNode | undefined {
  const operations = args.document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return args.operationName ? operations.find((o) => o.name?.value === args.operationName) : operations.length === 1 ? operations[0] : undefined;
}

/** The refusal of an operation with an overlong String, or undefined to let it run. */
function check(args: ExecutionArgs, plans: WeakMap<DocumentNode, Planned[]>): ExecutionResult | undefined {
  let planned = plans.get(args.document);
  if (!planned) plans.set(args.document, (planned = plan(args.schema, args.document)));
  if (planned.length === 0) return undefined;
  const operation = operationOf(args);
  if (!operation) return undefined; // execute reports it
  const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
  if (coerced.errors) return undefined; // execute reports them
  const limits = (args.contextValue as Context).server?.inputLimits ?? DEFAULT_INPUT_LIMITS;
  for (const { node, field, coordinate } of planned) {
    let values: Record<string, unknown>;
    try {
      values = getArgumentValues(field, node, coerced.coerced);
    } catch {
      continue; // an argument graphql-js refuses itself when it executes the field
    }
    for (const arg of field.args) {
      const error = overlong(values[arg.name], arg.type, `${coordinate}(${arg.name})`, limits);
      if (error) return { errors: [error as never] };
    }
  }
  return undefined;
}

export function useInputBounds(): Plugin<Context> {
  const plans = new WeakMap<DocumentNode, Planned[]>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const result = check(args, plans);
      if (result) setResultAndStopExecution(result);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const result = check(args, plans);
      if (result) setResultAndStopExecution(result);
    },
  };
}
