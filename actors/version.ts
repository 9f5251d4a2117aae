/**
 * The version Hearth reports where the original reports its own (`ha_version`, `/api/config`).
 * Clients parse it as `YEAR.MONTH.PATCH` and gate features on it (subscribe_entities needs
 * 2022.4, coalescing 2022.9), so it follows that form.
 */
export const CORE_VERSION = '2026.11.0';

/** The supervisor's own version (`/supervisor/info`), released with the core. */
export const SUPERVISOR_VERSION = CORE_VERSION;
