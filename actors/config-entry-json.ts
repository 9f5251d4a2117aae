/** What differs between config entries in the original's JSON of one. */
export interface ConfigEntryFacts {
  entry_id: string;
  domain: string;
  title: string;
  source: string;
  /** epoch ms */
  created_at: number;
  modified_at: number;
  state: 'loaded' | 'not_loaded' | 'setup_retry';
  supports_options: boolean;
  supports_remove_device: boolean;
  supports_reconfigure: boolean;
}

/** A config entry as the original's config entries API writes it (`GET /api/config/config_entries/entry`). */
export function configEntryJson(e: ConfigEntryFacts): Record<string, unknown> {
  return {
    created_at: e.created_at / 1000,
    entry_id: e.entry_id,
    domain: e.domain,
    modified_at: e.modified_at / 1000,
    title: e.title,
    source: e.source,
    state: e.state,
    supports_options: e.supports_options,
    supports_remove_device: e.supports_remove_device,
    supports_unload: true,
    supports_reconfigure: e.supports_reconfigure,
    supported_subentry_types: {},
    pref_disable_new_entities: false,
    pref_disable_polling: false,
    disabled_by: null,
    reason: null,
    error_reason_translation_key: null,
    error_reason_translation_placeholders: null,
    num_subentries: 0,
  };
}
