/** The GitLab version whose API we follow: /version answers it and export archives carry it in GITLAB_VERSION. */
export const gitlabCompatibleVersion = '17.0.0';
