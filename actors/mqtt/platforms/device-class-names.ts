/**
 * The names the original gives an entity that has a device class but no name of its own (the
 * English `entity_component.<device_class>.name` of each domain's strings). A device class
 * missing here (a sensor's `enum`) gives no name: the entity then shows its device's.
 */

export const SENSOR_NAMES: Readonly<Record<string, string>> = {
  absolute_humidity: 'Absolute humidity', apparent_power: 'Apparent power', aqi: 'Air quality index', area: 'Area',
  atmospheric_pressure: 'Atmospheric pressure', battery: 'Battery', blood_glucose_concentration: 'Blood glucose concentration',
  carbon_dioxide: 'Carbon dioxide', carbon_monoxide: 'Carbon monoxide', conductivity: 'Conductivity', current: 'Current',
  data_rate: 'Data rate', data_size: 'Data size', date: 'Date', distance: 'Distance', duration: 'Duration', energy: 'Energy',
  energy_distance: 'Energy per distance', energy_storage: 'Stored energy', frequency: 'Frequency', gas: 'Gas', humidity: 'Humidity',
  illuminance: 'Illuminance', irradiance: 'Irradiance', moisture: 'Moisture', monetary: 'Balance', nitrogen_dioxide: 'Nitrogen dioxide',
  nitrogen_monoxide: 'Nitrogen monoxide', nitrous_oxide: 'Nitrous oxide', ozone: 'Ozone', ph: 'pH', pm1: 'PM1', pm10: 'PM10', pm25: 'PM2.5',
  pm4: 'PM4', power_factor: 'Power factor', power: 'Power', precipitation: 'Precipitation', precipitation_intensity: 'Precipitation intensity',
  pressure: 'Pressure', reactive_energy: 'Reactive energy', reactive_power: 'Reactive power', signal_strength: 'Signal strength',
  sound_pressure: 'Sound pressure', speed: 'Speed', sulphur_dioxide: 'Sulphur dioxide', temperature: 'Temperature', timestamp: 'Timestamp',
  volatile_organic_compounds: 'Volatile organic compounds', volatile_organic_compounds_parts: 'Volatile organic compounds parts',
  voltage: 'Voltage', volume: 'Volume', volume_flow_rate: 'Volume flow rate', volume_storage: 'Stored volume', water: 'Water', weight: 'Weight',
  wind_direction: 'Wind direction', wind_speed: 'Wind speed',
};

export const BINARY_SENSOR_NAMES: Readonly<Record<string, string>> = {
  battery: 'Battery', battery_charging: 'Charging', carbon_monoxide: 'Carbon monoxide', cold: 'Cold', connectivity: 'Connectivity',
  door: 'Door', garage_door: 'Garage door', gas: 'Gas', heat: 'Heat', light: 'Light', lock: 'Lock', moisture: 'Moisture', motion: 'Motion',
  moving: 'Moving', occupancy: 'Occupancy', opening: 'Opening', plug: 'Plug', power: 'Power', presence: 'Presence', problem: 'Problem',
  running: 'Running', safety: 'Safety', smoke: 'Smoke', sound: 'Sound', tamper: 'Tamper', update: 'Update', vibration: 'Vibration',
  window: 'Window',
};

export const BUTTON_NAMES: Readonly<Record<string, string>> = { identify: 'Identify', restart: 'Restart', update: 'Update' };

export const EVENT_NAMES: Readonly<Record<string, string>> = { button: 'Button', doorbell: 'Doorbell', motion: 'Motion' };
export const UPDATE_NAMES: Readonly<Record<string, string>> = { firmware: 'Firmware' };
