import { InvalidArgumentError } from 'commander';

/** Parsers of command-line values: a wrong one is a usage error (exit 2) naming what was expected. */

export const positiveInt = (value: string): number => {
  if (!/^[1-9][0-9]{0,5}$/.test(value)) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
};

export const timerId = (value: string): string => {
  if (!/^[1-9][0-9]{0,14}$/.test(value))
    throw new InvalidArgumentError('expected a timer id (a positive number)');
  return value;
};
