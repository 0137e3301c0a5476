/** A unix account that gateway operations and jobs run as. */
export interface UnixUser {
  name: string;
  uid: number;
  gid: number;
  /** Primary group name. */
  group: string;
  home: string;
  /** Supplementary groups (name and gid), primary group included. */
  groups: { name: string; gid: number }[];
  /** Folders before the standard PATH in the user's commands and jobs: a site's own tools (config `userPath`). */
  path?: readonly string[];
}
