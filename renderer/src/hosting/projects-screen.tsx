import { NavLink, Navigate, Route, Routes } from 'react-router';
import { BadgesPage } from './badges-page';
import { CreateProjectPage } from './create-project-page';
import { GroupsPage } from './groups-page';
import { ImportPage } from './import-page';
import { NotificationsPage } from './notifications-page';
import { ProjectListPage } from './project-list-page';
import { ProjectPage } from './project-page';
import './projects.css';

const sections = [
  { to: '/projects', label: 'All projects', end: true },
  { to: '/projects/new', label: 'New project', end: false },
  { to: '/projects/import', label: 'Import', end: false },
  { to: '/projects/groups', label: 'Groups', end: false },
  { to: '/projects/badges', label: 'Group badges', end: false },
  { to: '/projects/notifications', label: 'Notifications', end: false },
] as const;

/** Projects: git repositories on this server, with GitLab's project features (routed at /projects/*). */
export function ProjectsScreen() {
  return (
    <div className="prj">
      <div className="prj-top">
        <div>
          <p className="eyebrow">Hosting</p>
          <h2 className="prj-title">Projects</h2>
        </div>
        <nav className="prj-sections" aria-label="Projects sections">
          {sections.map((section) => (
            <NavLink key={section.to} to={section.to} end={section.end} className="prj-section-link">
              {section.label}
            </NavLink>
          ))}
        </nav>
      </div>
      <Routes>
        <Route index element={<ProjectListPage />} />
        <Route path="new" element={<CreateProjectPage />} />
        <Route path="import" element={<ImportPage />} />
        <Route path="groups" element={<GroupsPage />} />
        <Route path="badges" element={<BadgesPage />} />
        <Route path="notifications" element={<NotificationsPage />} />
        <Route path=":id/*" element={<ProjectPage />} />
        <Route path="*" element={<Navigate to="/projects" replace />} />
      </Routes>
    </div>
  );
}
