// strftime as glibc does it for the codes templates use, over the fields of a date or datetime.
import type { WallTime } from '../../machines/wall-time.ts';
import { expandText } from './text.ts';
import { pad } from './wall-time.ts';
import { offsetText } from './zones.ts';

/** What strftime reads of a date or datetime. */
export interface StrftimeFields extends WallTime {
  micro: number;
  /** 0 for Monday */
  weekday: number;
  /** 1 for January 1st */
  yday: number;
  /** seconds east of UTC; null for a naive time */
  offset: number | null;
  zoneName: string;
}

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** strftime as glibc does it for the codes templates use (`%-d` drops the padding). */
export function strftime(fmt: string, fields: StrftimeFields): string {
  return expandText(fmt, /%(-?)([a-zA-Z%])/g, (whole, nopad: string, code: string) => {
    const padded = (value: number, width = 2) => (nopad ? String(value) : pad(value, width));
    switch (code) {
      case 'Y':
        return String(fields.year);
      case 'y':
        return padded(fields.year % 100);
      case 'm':
        return padded(fields.month);
      case 'd':
        return padded(fields.day);
      case 'e':
        return nopad ? String(fields.day) : String(fields.day).padStart(2, ' ');
      case 'H':
        return padded(fields.hour);
      case 'I':
        return padded(fields.hour % 12 || 12);
      case 'M':
        return padded(fields.minute);
      case 'S':
        return padded(fields.second);
      case 'f':
        return pad(fields.micro, 6);
      case 'p':
        return fields.hour < 12 ? 'AM' : 'PM';
      case 'a':
        return DAY_NAMES[fields.weekday].slice(0, 3);
      case 'A':
        return DAY_NAMES[fields.weekday];
      case 'w':
        return String((fields.weekday + 1) % 7);
      case 'u':
        return String(fields.weekday + 1);
      case 'b':
      case 'h':
        return MONTH_NAMES[fields.month - 1].slice(0, 3);
      case 'B':
        return MONTH_NAMES[fields.month - 1];
      case 'j':
        return padded(fields.yday, 3);
      case 'z':
        return fields.offset === null ? '' : offsetText(fields.offset, false);
      case 'Z':
        return fields.zoneName;
      case 'c':
        return `${DAY_NAMES[fields.weekday].slice(0, 3)} ${MONTH_NAMES[fields.month - 1].slice(0, 3)} ${String(fields.day).padStart(2, ' ')} ${pad(fields.hour)}:${pad(fields.minute)}:${pad(fields.second)} ${fields.year}`;
      case 'x':
        return `${pad(fields.month)}/${pad(fields.day)}/${pad(fields.year % 100)}`;
      case 'X':
      case 'T':
        return `${pad(fields.hour)}:${pad(fields.minute)}:${pad(fields.second)}`;
      case 'D':
        return `${pad(fields.month)}/${pad(fields.day)}/${pad(fields.year % 100)}`;
      case 'F':
        return `${fields.year}-${pad(fields.month)}-${pad(fields.day)}`;
      case 'R':
        return `${pad(fields.hour)}:${pad(fields.minute)}`;
      case 'U': {
        const sundayFirst = (fields.weekday + 1) % 7;
        return padded(Math.floor((fields.yday - 1 - sundayFirst + 7) / 7));
      }
      case 'W':
        return padded(Math.floor((fields.yday - 1 - fields.weekday + 7) / 7));
      case '%':
        return '%';
      default:
        return whole;
    }
  });
}

