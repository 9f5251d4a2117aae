import type { TemplateHome } from '../templates/states.ts';
import type { Registries } from './index.ts';

/**
 * The registries as template functions see them: an area, floor or label given by id or by
 * name (as the original's area_entities, floor_areas and label_entities accept either).
 */
export function templateHomeOf(registries: Registries): TemplateHome {
  return {
    areaEntities(areaIdOrName) {
      const area = registries.findArea(areaIdOrName);
      return area ? registries.entitiesOfArea(area.area_id) : [];
    },
    areaName: (lookup) => registries.areaName(lookup) ?? null,
    floorAreas(floorIdOrName) {
      const floor = registries.findFloor(floorIdOrName);
      return floor ? registries.floorAreas(floor.floor_id) : [];
    },
    deviceEntities: (deviceId) => registries.entitiesOfDevice(deviceId),
    labelEntities(labelIdOrName) {
      const label = registries.findLabel(labelIdOrName);
      return label ? registries.entitiesOfLabel(label.label_id) : [];
    },
  };
}
