// What a for loop walks, and Jinja's `loop` variable over it.
import { typeError } from './errors.ts';
import { Callable, MISSING, PyObject, Undefined, pyEq, tuple } from './values.ts';

/** A lazily indexed view of what a for loop walks. */
export interface Sequence {
  length: number;
  at(index: number): unknown;
}

/** Jinja's `loop` variable. */
export class LoopContext extends PyObject {
  readonly pyType = 'LoopContext';
  override get typeRepr() {
    return 'jinja2.runtime.LoopContext object';
  }
  index0 = 0;
  private last: unknown = MISSING;
  constructor(readonly items: ArrayLike<unknown> & { at?: unknown }, private readonly itemAt: (index: number) => unknown) {
    super();
  }
  override attr(name: string): unknown {
    const length = this.items.length;
    const index = this.index0;
    switch (name) {
      case 'index':
        return index + 1;
      case 'index0':
        return index;
      case 'revindex':
        return length - index;
      case 'revindex0':
        return length - index - 1;
      case 'first':
        return index === 0;
      case 'last':
        return index === length - 1;
      case 'length':
        return length;
      case 'depth':
        return 1;
      case 'depth0':
        return 0;
      case 'previtem':
        return index > 0 ? this.itemAt(index - 1) : new Undefined('there is no previous item');
      case 'nextitem':
        return index < length - 1 ? this.itemAt(index + 1) : new Undefined('there is no next item');
      case 'cycle':
        return new Callable('cycle', (_ctx, args) => {
          if (!args.length) throw typeError('no items for cycling given');
          return args[index % args.length];
        });
      case 'changed':
        return new Callable('changed', (_ctx, args) => {
          const value = args.length === 1 ? args[0] : tuple(args);
          if (this.last !== MISSING && pyEq(this.last, value)) return false;
          this.last = value;
          return true;
        });
    }
    return MISSING;
  }
  repr(): string {
    return `<LoopContext ${this.index0 + 1}/${this.items.length}>`;
  }
}
