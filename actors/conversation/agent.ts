import { join } from 'node:path';
import type { Context, EventRecord } from '../../store/types.ts';
import type { EntityState } from '../entities/types.ts';
import { entityRecords } from '../entities/registry.ts';
import type { IntentRegistry } from '../intents/registry.ts';
import { IntentResponse } from '../intents/response.ts';
import type { Intent, Slots } from '../intents/types.ts';
import { errorResponse, errorText } from '../intents/error-response.ts';
import { IntentError, IntentUnexpectedError } from '../intents/errors.ts';
import { matchTargets, type TargetHome } from '../intents/targeting.ts';
import { targetingOf } from '../intents/service-intent.ts';
import type { Registries } from '../registries/index.ts';
import type { Templates } from '../templates/index.ts';
import type { ChatLogs } from './chat-log.ts';
import { loadSentenceFiles, responsesOf, type LoadedSentenceFile } from './sentence-files.ts';
import { MISSING, prepareList, sentencesFromConfig, type PreparedList } from './sentences/index.ts';
import { buildRecognizer, type DynamicListValue, type Recognition, type Recognizer } from './recognizer.ts';

/** The default agent's id, and the legacy id the original also accepts (its brand word made `core`). */
export const DEFAULT_AGENT_ID = 'conversation.core';
export const LEGACY_AGENT_ID = 'core';
export const DEFAULT_AGENT_NAME = 'Hearth';

/** The lists whose unknown words are answered "not aware of any ..." rather than not understood. */
const UNMATCHABLE = new Set(['name', 'area', 'floor']);

/** One turn asked of an agent. */
export interface ConversationInput {
  text: string;
  language?: string | null;
  conversationId?: string | null;
  agentId?: string | null;
  deviceId?: string | null;
  satelliteId?: string | null;
  context: Context;
}

/** What an agent answers: the intent response, the conversation it belongs to. */
export interface ConversationResult {
  response: IntentResponse;
  conversationId: string;
  continueConversation: boolean;
}

/** The wire form `{response, conversation_id, continue_conversation}`. */
export function resultDict(r: ConversationResult): Record<string, unknown> {
  return { response: r.response.asDict(), conversation_id: r.conversationId, continue_conversation: r.continueConversation };
}

/** What the agent reads of the home. */
export interface AgentDeps {
  configDir: string;
  intents: IntentRegistry;
  templates: Templates;
  entities: { get(entityId: string): EntityState | undefined; states(): Iterable<EntityState> };
  registries: Registries;
  chatLogs: ChatLogs;
  /** the configured language (`en`) */
  language(): string;
  /** committed records (to know when the lists of names must be made again); without it they are made at every turn */
  onCommit?: (listener: (records: EventRecord[]) => void) => () => void;
  /** configuration.yaml's `conversation: intents:` (sentences for the configured language), read at each reload */
  configIntents?: () => Promise<unknown>;
  log(line: string): void;
}

/** A language's sentences: the recognizer and the response templates of its files. */
interface LanguageModel {
  files: LoadedSentenceFile[];
  recognizer: Recognizer;
  responses: ReturnType<typeof responsesOf>;
}

/** One result of the debug command (`conversation/agent/core/debug`), or null for no match. */
export type DebugResult = Record<string, unknown> | null;

/**
 * The default conversation agent (`conversation.core`): recognises text with the sentence
 * templates of Hearth's own files and the user's custom sentences, using lists made from the
 * home at that moment (entity names and aliases with their domain and area, area and floor
 * names and aliases), raises the intent through the IntentRegistry and words the answer with
 * the block's response template. Custom sentence files are read at start and again on
 * `reload()` (conversation/prepare, conversation.reload), no restart needed.
 */
export class DefaultAgent {
  readonly id = DEFAULT_AGENT_ID;
  readonly name = DEFAULT_AGENT_NAME;
  private models = new Map<string, LanguageModel>();
  private loading: Promise<void> | undefined;
  /** the lists of names, areas and floors, prepared for lookup; dropped when what they are made of changes */
  private listCache: Record<string, PreparedList> | undefined;

  constructor(private readonly deps: AgentDeps) {
    deps.onCommit?.((records) => {
      if (this.listCache && records.some((r) => this.changesNames(r))) this.listCache = undefined;
    });
  }

  /** Reads every sentence file again and rebuilds the recognizers. */
  reload(): Promise<void> {
    const run = (async () => {
      const byLanguage = await loadSentenceFiles(this.deps.configDir, this.deps.log);
      const fromConfig = await this.sentencesOfConfig();
      if (fromConfig) {
        const language = this.deps.language();
        byLanguage.set(language, [...(byLanguage.get(language) ?? []), fromConfig]);
      }
      const models = new Map<string, LanguageModel>();
      for (const [language, files] of byLanguage) {
        try {
          models.set(language, { files, recognizer: buildRecognizer(files, this.deps.log), responses: responsesOf(files) });
        } catch (err) {
          this.deps.log(`Sentences of ${language} not loaded: ${(err as Error).message}`);
        }
      }
      this.models = models;
    })();
    this.loading = run.finally(() => {
      if (this.loading === run) this.loading = undefined;
    });
    return run;
  }

  /** The sentences of configuration.yaml, or undefined when it has none (or they are not valid: said in the log). */
  private async sentencesOfConfig(): Promise<LoadedSentenceFile | undefined> {
    try {
      const intents = await this.deps.configIntents?.();
      if (intents === undefined || intents === null) return undefined;
      const parsed = sentencesFromConfig(intents);
      return { source: 'custom', file: 'configuration.yaml', language: this.deps.language(), text: '', data: {}, parsed };
    } catch (err) {
      this.deps.log(`Sentences of configuration.yaml left out: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Languages with sentences (Hearth's and the user's). */
  supportedLanguages(): string[] {
    return [...this.models.keys()].sort();
  }

  /** Languages of Hearth's own sentences. */
  builtinLanguages(): string[] {
    return [...this.models].filter(([, m]) => m.files.some((f) => f.source === 'builtin')).map(([l]) => l).sort();
  }

  /** Where the user's sentences live. */
  customDir(): string {
    return join(this.deps.configDir, 'custom_sentences');
  }

  private async model(language: string): Promise<LanguageModel | undefined> {
    await this.loading;
    return this.models.get(language) ?? this.models.get(language.split(/[-_]/)[0]);
  }

  /** Each entity's name when the lists were made. */
  private namesSeen = new Map<string, unknown>();

  /** Whether a record changes the lists: any registry record; a state that appears, goes, or is renamed. */
  private changesNames(r: EventRecord): boolean {
    if (r.stream.startsWith('registry/')) return true;
    if (!entityRecords.owns(r) || r.type !== 'state_changed') return false;
    const d = r.data;
    if (!this.namesSeen.has(d.entity_id)) return true;
    return !d.new_state || d.new_state.attributes?.friendly_name !== this.namesSeen.get(d.entity_id);
  }

  /** The lists made from the home, prepared (and kept while nothing they hold changes). */
  private lists(): Record<string, PreparedList> {
    if (this.listCache) return this.listCache;
    const lists = Object.fromEntries(Object.entries(this.makeLists()).map(([k, v]) => [k, prepareList(v)]));
    if (this.deps.onCommit) this.listCache = lists;
    return lists;
  }

  /** The lists made from the home: `name` (entities), `area`, `floor`. */
  private makeLists(): Record<string, DynamicListValue[]> {
    const { registries, entities } = this.deps;
    const name: DynamicListValue[] = [];
    this.namesSeen = new Map();
    for (const state of entities.states()) {
      this.namesSeen.set(state.entity_id, state.attributes.friendly_name);
      const domain = state.entity_id.slice(0, state.entity_id.indexOf('.'));
      const entry = registries.getEntity(state.entity_id);
      const area = registries.areaOf(state.entity_id);
      const context: Record<string, unknown> = { domain };
      if (area) context.area = area.name;
      const friendly = typeof state.attributes.friendly_name === 'string' ? state.attributes.friendly_name : null;
      const main = friendly ?? entry?.name ?? state.entity_id.slice(domain.length + 1).replaceAll('_', ' ');
      const names = new Set([main, ...(entry?.name ? [entry.name] : []), ...(entry?.aliases ?? [])]);
      for (const n of names) if (n.trim()) name.push({ in: n, out: main, context });
    }
    const area: DynamicListValue[] = [];
    for (const a of registries.areas()) for (const n of [a.name, ...a.aliases]) if (n.trim()) area.push({ in: n, out: a.name, context: { area: a.area_id } });
    const floor: DynamicListValue[] = [];
    for (const f of registries.floors()) for (const n of [f.name, ...f.aliases]) if (n.trim()) floor.push({ in: n, out: f.name, context: { floor: f.floor_id } });
    return { name, area, floor };
  }

  /** The context a satellite's place gives: its area and floor. */
  private devicePlace(deviceId: string | null | undefined): { areaId?: string; floorId?: string } {
    if (!deviceId) return {};
    const device = this.deps.registries.getDevice(deviceId);
    if (!device?.area_id) return {};
    const area = this.deps.registries.getArea(device.area_id);
    return { areaId: device.area_id, floorId: area?.floor_id ?? undefined };
  }

  /** Recognises text in a language; undefined when no sentence matches. */
  async recognize(text: string, language: string, deviceId?: string | null): Promise<{ recognition: Recognition; model: LanguageModel } | undefined> {
    const model = await this.model(language);
    if (!model) return undefined;
    const place = this.devicePlace(deviceId);
    const context: Record<string, unknown> = {};
    if (place.areaId) {
      const area = this.deps.registries.getArea(place.areaId);
      if (area) context.area = area.name;
    }
    const lists = this.lists();
    const recognition = model.recognizer.recognize(text, lists, context) ?? model.recognizer.recognize(text, lists, context, true);
    if (!recognition) return undefined;
    // words in place of a name, area or floor nobody has are worth an answer; other lists are not,
    // and a context key the block wants (its domain) is no words said
    const said = Object.entries(recognition.unmatchedSlots).filter(([, u]) => u.text !== MISSING);
    if (Object.keys(recognition.unmatchedSlots).length && (said.length === 0 || said.some(([slot]) => !UNMATCHABLE.has(slot)))) return undefined;
    return { recognition, model };
  }

  /** The error sentence for words no name, area or floor has: the place first, then the thing. */
  private unmatchedError(r: Recognition): [string, Record<string, string>] {
    const unmatched = Object.fromEntries(Object.entries(r.unmatchedSlots).filter(([, u]) => u.text !== MISSING));
    const said = (slot: string) => r.slots[slot]?.text || String(r.slots[slot]?.value ?? '');
    if (unmatched.area) return ['no_area', { area: unmatched.area.text }];
    if (unmatched.floor) return ['no_floor', { floor: unmatched.floor.text }];
    if (!unmatched.name) return ['no_intent', {}];
    const entity = unmatched.name.text;
    const place = this.placeIn(entity);
    if (place) return place;
    if (r.slots.area) return ['no_entity_in_area', { entity, area: said('area') }];
    if (r.slots.floor) return ['no_entity_in_floor', { entity, floor: said('floor') }];
    return ['no_entity', { entity }];
  }

  /**
   * Unknown words that end in a place ("lights in the attic"): the place is what is not known
   * (`no_area`), or, when it is an area, the thing in it (`no_entity_in_area`).
   */
  private placeIn(words: string): [string, Record<string, string>] | undefined {
    const m = /^(.+?)\s+(?:in|on|at|inside)\s+(?:the\s+)?(.+)$/i.exec(words.trim());
    if (!m) return undefined;
    const [, thing, place] = m;
    const known = (names: string[]) => names.some((n) => n.trim().toLowerCase() === place.toLowerCase());
    const area = this.deps.registries.areas().find((a) => known([a.name, ...a.aliases]));
    if (area) return ['no_entity_in_area', { entity: thing, area: area.name }];
    if (this.deps.registries.floors().some((f) => known([f.name, ...f.aliases]))) return undefined;
    return ['no_area', { area: place }];
  }

  /** The intent a recognition raises. */
  private intentOf(r: Recognition, input: ConversationInput, language: string): Intent {
    const slots: Slots = {};
    for (const s of Object.values(r.slots)) slots[s.name] = { value: s.value, text: s.text || (typeof s.value === 'string' ? s.value : String(s.value)) };
    const place = this.devicePlace(input.deviceId);
    if (place.areaId && !slots.preferred_area_id) slots.preferred_area_id = { value: place.areaId };
    if (place.floorId && !slots.preferred_floor_id) slots.preferred_floor_id = { value: place.floorId };
    return {
      platform: 'conversation',
      intentType: r.intent,
      slots,
      textInput: input.text,
      context: input.context,
      language,
      assistant: 'conversation',
      deviceId: input.deviceId ?? null,
      satelliteId: input.satelliteId ?? null,
      conversationAgentId: DEFAULT_AGENT_ID,
    };
  }

  /** Handles one turn: recognise, raise the intent, word the answer; records both turns in the chat log. */
  async process(input: ConversationInput): Promise<ConversationResult> {
    const language = input.language || this.deps.language();
    const conversationId = await this.deps.chatLogs.open(input.conversationId, input.context);
    await this.deps.chatLogs.add(conversationId, { role: 'user', content: input.text }, input.context);
    const response = await this.respond(input, language);
    const speech = response.speech.plain?.speech ?? response.speech.ssml?.speech ?? '';
    await this.deps.chatLogs.add(conversationId, { role: 'assistant', agent_id: DEFAULT_AGENT_ID, content: speech }, input.context);
    return { response, conversationId, continueConversation: false };
  }

  private async respond(input: ConversationInput, language: string): Promise<IntentResponse> {
    const found = await this.recognize(input.text, language, input.deviceId);
    const errors = Object.fromEntries((await this.model(language))?.responses.errors ?? []);
    if (!found) return new IntentResponse(language).setError('no_intent_match', errorText('no_intent', {}, errors));
    const { recognition, model } = found;
    if (Object.keys(recognition.unmatchedSlots).length) {
      const [key, args] = this.unmatchedError(recognition);
      return new IntentResponse(language).setError('no_valid_targets', errorText(key, args, errors));
    }
    const intent = this.intentOf(recognition, input, language);
    let response: IntentResponse;
    try {
      response = await this.deps.intents.handle(intent);
    } catch (err) {
      if (!(err instanceof IntentError) || err instanceof IntentUnexpectedError) {
        this.deps.log(`Error handling ${intent.intentType} from "${input.text}": ${String((err as Error)?.cause ?? err)}`);
      }
      return errorResponse(err, language, { mode: 'conversation', texts: errors });
    }
    if (Object.keys(response.speech).length === 0) {
      const template = model.responses.intents.get(recognition.intent)?.get(recognition.response || 'default');
      if (template !== undefined) {
        const rendered = this.deps.templates.render(template, this.templateVariables(recognition, response));
        if (rendered.ok) response.setSpeech(rendered.text);
        else this.deps.log(`Response ${recognition.intent}/${recognition.response} failed to render: ${rendered.error.message}`);
      }
    }
    return response;
  }

  /** What a response template sees: `slots` (words said, then the handler's speech slots), `query`, `state`. */
  private templateVariables(r: Recognition, response: IntentResponse): Record<string, unknown> {
    const slots: Record<string, unknown> = {};
    for (const s of Object.values(r.slots)) slots[s.name] = s.text || s.value;
    Object.assign(slots, response.speechSlots);
    const matched = response.matchedStates.map(stateVariable);
    const unmatched = response.unmatchedStates.map(stateVariable);
    const state = matched[0] ?? unmatched[0] ?? null;
    return { slots, query: { matched, unmatched }, state };
  }

  private debugTargets(intent: Intent): Record<string, { matched: boolean }> {
    // the targeting slots take their validators' forms (a domain is a list)
    const slots = { ...intent.slots };
    for (const key of ['domain', 'device_class']) {
      const v = slots[key]?.value;
      if (v !== undefined && !Array.isArray(v)) slots[key] = { ...slots[key], value: [v] };
    }
    return debugTargetsOf({ entities: this.deps.entities, registries: this.deps.registries }, { ...intent, slots });
  }

  /** The debug command's answer for each sentence (`conversation/agent/core/debug`). */
  async debug(sentences: string[], language: string, deviceId?: string | null): Promise<DebugResult[]> {
    const results: DebugResult[] = [];
    for (const sentence of sentences) {
      const found = await this.recognize(sentence, language, deviceId);
      if (!found) {
        results.push(null);
        continue;
      }
      const r = found.recognition;
      const slots: Record<string, unknown> = {};
      const details: Record<string, unknown> = {};
      for (const s of Object.values(r.slots)) {
        slots[s.name] = s.value;
        details[s.name] = { name: s.name, value: s.value, text: s.text };
      }
      const intent = this.intentOf(r, { text: sentence, deviceId, context: { id: '', parent_id: null, user_id: null } }, language);
      const targets = this.debugTargets(intent);
      const unmatched: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r.unmatchedSlots)) unmatched[k] = v.text;
      results.push({
        intent: { name: r.intent },
        slots,
        details,
        targets,
        match: Object.keys(unmatched).length === 0,
        sentence_template: r.template,
        unmatched_slots: unmatched,
        source: r.source,
        ...(r.source === 'custom' ? { file: r.file } : {}),
      });
    }
    return results;
  }
}

/** The entities a recognised intent's slots reach, as the debug command lists them. */
function debugTargetsOf(home: TargetHome, intent: Intent): Record<string, { matched: boolean }> {
  const { constraints, preferences } = targetingOf(intent);
  const targets: Record<string, { matched: boolean }> = {};
  // nothing to match on (the date, a timer) is no target at all, not every entity
  if (!constraints.name && !constraints.areaName && !constraints.floorName && !constraints.domains?.length && !constraints.deviceClasses?.length) return targets;
  const raw = intent.slots.state?.value;
  const wanted = raw === undefined ? undefined : (Array.isArray(raw) ? raw : [raw]).map(String);
  try {
    for (const state of matchTargets(home, constraints, preferences, { allowDuplicateNames: true }).states) {
      targets[state.entity_id] = { matched: !wanted || wanted.includes(state.state) };
    }
  } catch {
    // no target matched: an empty map
  }
  return targets;
}

/** A state as response templates read it, with `name` and `state_with_unit`. */
function stateVariable(s: unknown): Record<string, unknown> {
  const st = s as Partial<EntityState>;
  const attributes = (st.attributes ?? {}) as Record<string, unknown>;
  const entityId = String(st.entity_id ?? '');
  const dot = entityId.indexOf('.');
  const unit = typeof attributes.unit_of_measurement === 'string' ? attributes.unit_of_measurement : '';
  const state = String(st.state ?? '');
  return {
    entity_id: entityId,
    domain: entityId.slice(0, dot),
    object_id: entityId.slice(dot + 1),
    name: typeof attributes.friendly_name === 'string' ? attributes.friendly_name : entityId.slice(dot + 1).replaceAll('_', ' '),
    state,
    state_with_unit: unit ? `${state} ${unit}` : state,
    attributes,
  };
}
