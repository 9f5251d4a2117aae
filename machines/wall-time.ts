/** A date and time as a clock on the wall shows it, without a zone (the original's naive datetime). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}
