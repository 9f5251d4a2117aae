import { colorNameToRgb } from '../../../machines/color.ts';
import type { IntentHome } from '../platforms.ts';
import { serviceIntentHandler } from '../service-intent.ts';
import { intRange, str } from '../slots.ts';
import type { IntentHandler, SlotValidator } from '../types.ts';

/** The original's color_name_to_rgb: a colour name as its RGB triple; an unknown name is not valid. */
const colorName: SlotValidator = (v) => {
  const rgb = colorNameToRgb(str(v) as string);
  if (!rgb) throw new Error(`unknown color ${String(v)}`);
  return rgb;
};

/**
 * CoreLightSet (the light integration's): `light.turn_on` on each light reached, with the
 * `brightness` asked (0–100, as `brightness_pct`), the `color` named (as `rgb_color`) or the colour
 * `temperature` (kelvin, as `color_temp_kelvin`). No speech: the sentence's response words it.
 */
export function lightSetIntent(home: IntentHome): IntentHandler {
  return serviceIntentHandler(home, {
    intentType: 'CoreLightSet',
    description: 'Sets the brightness percentage or color',
    domain: 'light',
    service: 'turn_on',
    optionalSlots: {
      color: { validator: colorName, serviceKey: 'rgb_color' },
      temperature: { validator: intRange(0, Number.MAX_SAFE_INTEGER), serviceKey: 'color_temp_kelvin' },
      brightness: { validator: intRange(0, 100), serviceKey: 'brightness_pct' },
    },
  });
}
