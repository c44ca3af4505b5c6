import { useId } from 'react';
import type { NotificationLevelName } from '../api/hosting';

/** The notification levels a person picks from, with what each does. */
export const notificationLevels: readonly {
  readonly value: NotificationLevelName;
  readonly label: string;
  readonly help: string;
  readonly globalToo: boolean;
}[] = [
  { value: 'global', label: 'Global', help: 'Use your global notification setting.', globalToo: false },
  { value: 'watch', label: 'Watch', help: 'Every activity.', globalToo: true },
  { value: 'participating', label: 'Participate', help: 'Only threads you take part in.', globalToo: true },
  { value: 'mention', label: 'On mention', help: 'Only when you are @mentioned.', globalToo: true },
  { value: 'disabled', label: 'Disabled', help: 'No notifications.', globalToo: true },
  { value: 'custom', label: 'Custom', help: 'Participating, plus the events you choose.', globalToo: true },
];

/** A select of notification levels (`scope` global leaves out "Global", which means "inherit"). */
export function NotificationLevelSelect({
  label,
  scope,
  value,
  busy,
  onChange,
}: {
  readonly label: string;
  readonly scope: 'global' | 'project';
  readonly value: NotificationLevelName;
  readonly busy: boolean;
  readonly onChange: (level: NotificationLevelName) => void;
}) {
  const id = useId();
  const choices = notificationLevels.filter((l) => scope === 'project' || l.globalToo);
  const current = choices.find((l) => l.value === value);
  return (
    <div className="prj-field">
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className="input prj-medium"
        value={value}
        aria-busy={busy}
        onChange={(e) => onChange(e.currentTarget.value as NotificationLevelName)}
        aria-describedby={`${id}-help`}
      >
        {choices.map((l) => (
          <option key={l.value} value={l.value}>
            {l.label}
          </option>
        ))}
      </select>
      <p className="prj-help" id={`${id}-help`}>
        {current?.help}
      </p>
    </div>
  );
}
