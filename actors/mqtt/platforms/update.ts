import { mqttUpdateMachine, standingSkip, type UpdateInfo } from '../../../machines/mqtt/update.machine.ts';
import { InvalidValue, toBool, toStr } from '../schema.ts';
import { UPDATE_INSTALL, updateServices } from '../../entities/platforms/update.ts';
import { compareVersions } from '../../version-order.ts';
import { optional, orNull, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { UPDATE_NAMES } from './device-class-names.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

export interface MqttUpdateConfig extends MqttEntityConfig {
  state_topic: string;
  value_template?: string;
  latest_version_topic?: string;
  latest_version_template?: string;
  command_topic?: string;
  payload_install?: string;
  release_summary?: string;
  release_url?: string;
  title?: string;
  retain: boolean;
}

const EMPTY_INFO: UpdateInfo = { installed_version: null, latest_version: null, title: null, release_summary: null, release_url: null };

/** The picture an update entity shows without one of its own: its integration's brand icon. */
const BRAND_ICON = 'https://brands.home-assistant.io/_/mqtt/icon.png';

const KEYS = ['installed_version', 'latest_version', 'title', 'release_summary', 'release_url', 'entity_picture'] as const;

/** vol.Any(DEVICE_CLASSES_SCHEMA, None). */
function toUpdateDeviceClass(value: unknown): string {
  const text = toStr(value).toLowerCase();
  if (text !== 'firmware') throw new InvalidValue("expected UpdateDeviceClass or one of 'firmware'");
  return text;
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** The original's update state: on when the latest version is newer than the installed one (and not skipped). */
function updateState(info: UpdateInfo, skipped: string | null): string | null {
  const installed = text(info.installed_version);
  const latest = text(info.latest_version);
  if (installed === null || latest === null) return null;
  if (latest === skipped || latest === installed) return 'off';
  try {
    return compareVersions(latest, installed) > 0 ? 'on' : 'off';
  } catch {
    // versions that cannot be ordered and differ: an update
    return 'on';
  }
}

const features = (c: MqttUpdateConfig) => (c.command_topic !== undefined ? UPDATE_INSTALL : 0);

/** update: installed and latest versions of a device's software from its topics; install over its command topic. */
export const mqttUpdate: MqttPlatform<MqttUpdateConfig> = {
  domain: 'update',
  defaultName: 'MQTT Update',
  deviceClassNames: UPDATE_NAMES,
  fields: {
    state_topic: required(validSubscribeTopic),
    value_template: optional(toTemplate),
    command_topic: optional(validPublishTopic),
    device_class: optional(orNull(toUpdateDeviceClass)),
    // cv.string, not a URL, for an update entity
    entity_picture: optional(toStr),
    latest_version_template: optional(toTemplate),
    latest_version_topic: optional(validSubscribeTopic),
    payload_install: optional(toStr),
    release_summary: optional(toStr),
    release_url: optional(toStr),
    retain: optional(toBool, false),
    title: optional(toStr),
  },
  keptOnUpdate: ['info', 'skipped'],
  machine: mqttUpdateMachine,
  // the skipped version is restored, as the original's UpdateEntity restores it
  input: (config, restored, _now, entityId) => ({
    info: { ...EMPTY_INFO, title: config.title ?? null, release_summary: config.release_summary ?? null, release_url: config.release_url ?? null },
    skipped: typeof restored?.attributes.skipped_version === 'string' ? restored.attributes.skipped_version : null,
    entityId,
  }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        const payload = m.payload;
        if (payload === null || payload === '' || payload === '{}') return undefined;
        let parsed: unknown;
        try {
          parsed = JSON.parse(payload);
        } catch {
          parsed = undefined;
        }
        // a JSON object gives its keys; anything else is the installed version
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { type: 'message', info: { installed_version: payload } };
        const info: Record<string, unknown> = {};
        for (const key of KEYS) if (key in parsed) info[key] = (parsed as Record<string, unknown>)[key];
        return { type: 'message', info };
      },
    },
    {
      topicKey: 'latest_version_topic',
      templateKey: 'latest_version_template',
      read(m) {
        if (m.payload === null || m.payload === '') return undefined;
        return { type: 'message', info: { latest_version: m.payload } };
      },
    },
  ],
  render: (snapshot, config) => {
    const { info, skipped } = snapshot.context as { info: UpdateInfo; skipped: string | null };
    const standing = standingSkip(info, skipped);
    const summary = typeof info.release_summary === 'string' ? info.release_summary.slice(0, 255) : info.release_summary;
    const picture = info.entity_picture !== undefined ? text(info.entity_picture) : (config.entity_picture ?? BRAND_ICON);
    return {
      state: updateState(info, standing),
      attributes: {
        auto_update: false,
        display_precision: 0,
        installed_version: info.installed_version,
        in_progress: false,
        latest_version: info.latest_version,
        release_summary: summary ?? null,
        release_url: info.release_url ?? null,
        skipped_version: standing,
        title: info.title ?? null,
        update_percentage: null,
      },
      supported_features: features(config),
      entity_picture: picture,
    };
  },
  services: updateServices,
  registryInfo: (config) => ({ supported_features: features(config) }),
};
