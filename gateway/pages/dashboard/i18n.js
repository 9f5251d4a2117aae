// The dashboard's words, in English and German. A key missing in a language falls back to
// English, and a key missing everywhere shows as itself (so a forgotten entry is visible, not
// blank). Pages add their keys here; `{name}` in a text is filled from t()'s second argument.

const TEXTS = {
  en: {
    'app.title': 'Hearth',
    'app.skip': 'Skip to content',
    'app.loading': 'Loading…',
    'app.signout': 'Sign out',
    'app.connecting': 'Connecting…',
    'app.reconnecting': 'Connection lost, reconnecting…',
    'app.connected': '',
    'app.error': 'Something went wrong: {message}',
    'app.not_found': 'No such page: {name}',
    'app.auth_failed': 'Signing in failed; trying again…',
    'nav.main': 'Main',
    'nav.home': 'Home',
    'nav.log': 'Log',
    'nav.operator': 'Operator',
    'home.title': 'Home',
    'home.search': 'Search entities',
    'home.search_hint': 'Name or entity id (press / to search)',
    'home.count': '{shown} of {total} entities',
    'home.none': 'No entities match.',
    'home.unassigned': 'Unassigned',
    'home.turn_on': 'Turn on {name}',
    'home.toggle': 'Turn {name} on or off',
    'home.brightness': 'Brightness of {name}',
    'home.open': 'Open',
    'home.close': 'Close',
    'home.stop': 'Stop',
    'home.position': 'Position of {name}',
    'home.lock': 'Lock',
    'home.unlock': 'Unlock',
    'home.target': 'Target temperature of {name}',
    'home.start': 'Start',
    'home.cancel': 'Cancel',
    'home.press': 'Press',
    'home.run': 'Run',
    'home.activate': 'Activate',
    'home.value': 'Value of {name}',
    'home.option': 'Option of {name}',
    'home.history': 'History of {name}',
    'home.failed': 'Failed: {message}',
    'history.title': 'History',
    'history.of': 'History of {name}',
    'history.period': 'Period',
    'history.hour': 'Last hour',
    'history.day': 'Last day',
    'history.week': 'Last week',
    'history.custom': 'From – to',
    'history.from': 'From',
    'history.to': 'To',
    'history.show': 'Show',
    'history.loading': 'Loading history…',
    'history.empty': 'No history in this period.',
    'history.legend': 'Legend',
    'history.back': 'Back to home',
    'history.bad_range': 'The start must be before the end.',
    'history.no_entity': 'No entity chosen.',
    'history.points': '{count} values',
  },
  de: {
    'app.skip': 'Zum Inhalt springen',
    'app.loading': 'Lädt…',
    'app.signout': 'Abmelden',
    'app.connecting': 'Verbinde…',
    'app.reconnecting': 'Verbindung verloren, verbinde neu…',
    'app.error': 'Etwas ist schiefgegangen: {message}',
    'app.not_found': 'Keine solche Seite: {name}',
    'app.auth_failed': 'Anmeldung fehlgeschlagen; neuer Versuch…',
    'nav.main': 'Haupt',
    'nav.home': 'Übersicht',
    'nav.log': 'Protokoll',
    'nav.operator': 'Betrieb',
    'home.title': 'Übersicht',
    'home.search': 'Entitäten suchen',
    'home.search_hint': 'Name oder Entitäts-ID (/ drücken zum Suchen)',
    'home.count': '{shown} von {total} Entitäten',
    'home.none': 'Keine Entität passt.',
    'home.unassigned': 'Ohne Bereich',
    'home.turn_on': '{name} einschalten',
    'home.toggle': '{name} ein- oder ausschalten',
    'home.brightness': 'Helligkeit von {name}',
    'home.open': 'Öffnen',
    'home.close': 'Schließen',
    'home.stop': 'Stopp',
    'home.position': 'Position von {name}',
    'home.lock': 'Verriegeln',
    'home.unlock': 'Entriegeln',
    'home.target': 'Zieltemperatur von {name}',
    'home.start': 'Starten',
    'home.cancel': 'Abbrechen',
    'home.press': 'Drücken',
    'home.run': 'Ausführen',
    'home.activate': 'Aktivieren',
    'home.value': 'Wert von {name}',
    'home.option': 'Option von {name}',
    'home.history': 'Verlauf von {name}',
    'home.failed': 'Fehlgeschlagen: {message}',
    'history.title': 'Verlauf',
    'history.of': 'Verlauf von {name}',
    'history.period': 'Zeitraum',
    'history.hour': 'Letzte Stunde',
    'history.day': 'Letzter Tag',
    'history.week': 'Letzte Woche',
    'history.custom': 'Von – bis',
    'history.from': 'Von',
    'history.to': 'Bis',
    'history.show': 'Anzeigen',
    'history.loading': 'Verlauf wird geladen…',
    'history.empty': 'Kein Verlauf in diesem Zeitraum.',
    'history.legend': 'Legende',
    'history.back': 'Zurück zur Übersicht',
    'history.bad_range': 'Der Anfang muss vor dem Ende liegen.',
    'history.no_entity': 'Keine Entität gewählt.',
    'history.points': '{count} Werte',
  },
};

/** Languages with a table. */
export const LANGUAGES = Object.keys(TEXTS);

/** The table's language for a tag like `de-AT` or `en_US`; English when there is none. */
export function pickLanguage(...tags) {
  for (const tag of tags) {
    if (typeof tag !== 'string' || !tag) continue;
    const lang = tag.toLowerCase().split(/[-_]/)[0];
    if (TEXTS[lang]) return lang;
  }
  return 'en';
}

/** A t(key, vars?) for one language. */
export function translator(lang) {
  const table = TEXTS[lang] ?? TEXTS.en;
  return (key, vars) => {
    let text = table[key] ?? TEXTS.en[key] ?? key;
    if (vars) text = text.replace(/\{(\w+)\}/g, (m, name) => (vars[name] === undefined ? m : String(vars[name])));
    return text;
  };
}
