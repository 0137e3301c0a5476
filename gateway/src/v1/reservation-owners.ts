/**
 * Who may change a reservation: the user who created it through the API, or a reservation admin
 * (root and the config's `reservationAdmins`). Reservations the API did not create (the site's
 * maintenance window, anything made with scontrol) belong to the site: only admins change them.
 * The owners are kept in the state dir, so they survive a restart.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UnixUser } from '../users';

export class ReservationOwners {
  private readonly file: string;
  private owners: Record<string, string>;

  constructor(stateDir: string, private readonly admins: readonly string[]) {
    this.file = join(stateDir, 'reservation-owners.json');
    this.owners = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>) : {};
  }

  private key(system: string, name: string): string {
    return `${system.toLowerCase()}/${name}`;
  }

  isAdmin(user: UnixUser): boolean {
    return user.uid === 0 || this.admins.includes(user.name);
  }

  /** True when `user` may update or delete the reservation `name` of `system`. */
  mayManage(user: UnixUser, system: string, name: string): boolean {
    return this.isAdmin(user) || this.owners[this.key(system, name)] === user.name;
  }

  /** The reservation was created by `user`. */
  created(user: UnixUser, system: string, name: string): void {
    this.owners[this.key(system, name)] = user.name;
    this.save();
  }

  deleted(system: string, name: string): void {
    delete this.owners[this.key(system, name)];
    this.save();
  }

  private save(): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.owners), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
