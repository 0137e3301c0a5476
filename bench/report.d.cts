export interface Figure {
  value: number | string;
  unit?: string;
  target?: string;
  met?: boolean;
}
export declare const jsonWanted: boolean;
export declare function emitJson(bench: string, figures: Record<string, Figure>): void;
export declare function atMost(value: number, max: number, unit?: string): Figure;
export declare function atLeast(value: number, min: number, unit?: string): Figure;
export declare function emitTable(bench: string, head: string[], rows: (string | number)[][], judge?: (row: (string | number)[]) => { target?: string; met?: boolean }): void;
