"""A new user's session with python-gitlab (Debian's python3-gitlab) against a running Cratehouse.

Usage: python3 python_gitlab_smoke.py <base-url> <admin-token>
Creates a user and works as them: lists, creates, edits, stars, archives, shares, forks and deletes
projects, manages group and project badges and notification settings, pushes files and reads them through the
repository API (tree, files, blobs, archive), through the client's own objects. Any
error raised by the client fails the run; each step checks what the server answered. Prints one line per step and "OK" at the end.
"""
import base64
import hashlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
import zipfile

import gitlab

url, admin_token = sys.argv[1], sys.argv[2]
suffix = uuid.uuid4().hex[:6]


def step(name):
    print("-", name, flush=True)


admin = gitlab.Gitlab(url, private_token=admin_token)
admin.auth()
step("auth as admin: %s" % admin.user.username)
version = admin.version()
step("version %s" % (version,))

user = admin.users.create({"email": "py%s@example.com" % suffix, "username": "py%s" % suffix, "name": "Py Producer", "password": "long-enough-password"})
token = admin.http_post("/users/%d/personal_access_tokens" % user.id, post_data={"name": "smoke", "scopes": ["api"]})["token"]
gl = gitlab.Gitlab(url, private_token=token)
gl.auth()
assert gl.user.username == user.username
step("signed in as %s" % gl.user.username)

group = gl.groups.create({"name": "Py Band %s" % suffix, "path": "py-band-%s" % suffix})
step("group %s" % group.full_path)

p = gl.projects.create({"name": "PyGit Demo", "description": "made by python-gitlab", "visibility": "public"})
assert p.path == "pygit-demo", p.path
assert p.path_with_namespace == "%s/pygit-demo" % user.username
assert p.visibility == "public" and p.archived is False and p.star_count == 0
step("created %s (id %d)" % (p.path_with_namespace, p.id))

same = gl.projects.get(p.path_with_namespace)
assert same.id == p.id
step("got it back by path")

p.description = "edited by python-gitlab"
p.issues_enabled = False
p.save()
again = gl.projects.get(p.id)
assert again.description == "edited by python-gitlab" and again.issues_enabled is False
step("edited description and issues_enabled")

for i in range(3):
    gl.projects.create({"name": "Batch %d" % i, "namespace_id": group.id})
# owned: the personal namespace and the groups the user owns (GitLab's owned_projects).
mine = gl.projects.list(owned=True, all=True, per_page=2)
names = sorted(x.name for x in mine)
assert names == ["Batch 0", "Batch 1", "Batch 2", "PyGit Demo"], names
personal = gl.users.get(user.id).projects.list(all=True)
assert [x.name for x in personal] == ["PyGit Demo"], [x.name for x in personal]
batch = gl.projects.list(search="Batch", all=True, per_page=2)
assert sorted(x.name for x in batch) == ["Batch 0", "Batch 1", "Batch 2"], [x.name for x in batch]
group_projects = gl.projects.list(membership=True, all=True, per_page=2, order_by="name", sort="asc")
assert [x.name for x in group_projects] == ["Batch 0", "Batch 1", "Batch 2", "PyGit Demo"], [x.name for x in group_projects]
step("listed with owned/search/membership across pages (Link rel=next)")

p.star()
assert gl.projects.get(p.id).star_count == 1
try:
    p.star()
    raise AssertionError("a second star should be 304")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 304
starred = gl.projects.list(starred=True, all=True)
assert [x.id for x in starred] == [p.id]
p.unstar()
assert gl.projects.get(p.id).star_count == 0
step("starred, 304 on a second star, unstarred")

p.archive()
assert gl.projects.get(p.id).archived is True
assert [x.id for x in gl.projects.list(archived=True, owned=True, all=True)] == [p.id]
assert p.id not in [x.id for x in gl.projects.list(archived=False, owned=True, all=True)]
p.unarchive()
assert gl.projects.get(p.id).archived is False
step("archived and unarchived")

other = gl.groups.create({"name": "Py Friends %s" % suffix, "path": "py-friends-%s" % suffix})
p.share(other.id, gitlab.const.DEVELOPER_ACCESS)
shared = gl.projects.get(p.id).shared_with_groups
assert [(s["group_id"], s["group_access_level"]) for s in shared] == [(other.id, 30)], shared
p.unshare(other.id)
assert gl.projects.get(p.id).shared_with_groups == []
step("shared with a group and unshared")

members = [u.username for u in p.users.list()]
assert members == [user.username], members
step("project users: %s" % members)

fork = p.forks.create({"namespace": group.full_path})
assert fork.forked_from_project["id"] == p.id
# Right after the fork request the fork job may not have made the repository yet: statistics come
# from the records, so neither the project nor a list holding it may fail (glab repo fork reads them).
early = gl.projects.get(fork.id, statistics=True)
assert early.statistics["commit_count"] >= 0 and early.statistics["repository_size"] >= 0, early.statistics
assert fork.id in [x.id for x in gl.projects.list(statistics=True, owned=True, all=True)]
step("statistics of the fork while it is %s" % early.import_status)
for _ in range(200):
    status = gl.projects.get(fork.id).import_status
    if status in ("finished", "failed"):
        break
    time.sleep(0.05)
assert status == "finished", status
assert [f.id for f in p.forks.list()] == [fork.id]
step("forked into %s, import_status %s" % (group.full_path, status))

hook = p.hooks.create({"url": "http://127.0.0.1:9/hook", "push_events": True, "tag_push_events": True, "token": "hook-secret"})
assert hook.push_events is True and hook.tag_push_events is True and hook.issues_events is False
assert not hasattr(hook, "token"), "the hook token must never be returned"
assert [h.id for h in p.hooks.list()] == [hook.id]
hook.url = "http://127.0.0.1:9/hook2"
hook.issues_events = True
hook.save()
again = p.hooks.get(hook.id)
assert again.url == "http://127.0.0.1:9/hook2" and again.issues_events is True and again.push_events is True
try:
    p.hooks.create({"url": "ftp://example.com/x"})
    raise AssertionError("an ftp URL should be refused")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 422
p.hooks.delete(hook.id)
assert p.hooks.list() == []
step("project hook created (token write-only), listed, edited, 422 for a bad URL, deleted")

# Group badges: placeholders take the group's first project (Batch 0, an empty repository: no commit sha).
first = gl.projects.get("%s/batch-0" % group.full_path)
badge = group.badges.create({"link_url": "https://ci.example.com/%{project_path}", "image_url": "https://ci.example.com/%{project_id}/%{default_branch}.svg", "position": 0})
assert badge.kind == "group", badge.kind
assert badge.rendered_link_url == "https://ci.example.com/%s" % first.path_with_namespace, badge.rendered_link_url
assert badge.rendered_image_url == "https://ci.example.com/%d/main.svg" % first.id, badge.rendered_image_url
badge.name = "ci"
badge.image_url = "https://ci.example.com/%{default_branch}.svg"
badge.save()
assert badge.rendered_image_url == "https://ci.example.com/main.svg", badge.rendered_image_url
assert [(b.id, b.name) for b in group.badges.list()] == [(badge.id, "ci")]
assert group.badges.get(badge.id).link_url == "https://ci.example.com/%{project_path}"
rendered = group.badges.render("https://x.example/%{project_name}", "https://x.example/%{commit_sha}.svg")
assert rendered == {"name": None, "link_url": "https://x.example/%{project_name}", "image_url": "https://x.example/%{commit_sha}.svg", "rendered_link_url": "https://x.example/batch-0", "rendered_image_url": "https://x.example/.svg"}, rendered
try:
    group.badges.create({"link_url": "ftp://example.com", "image_url": "https://example.com/b.svg"})
    raise AssertionError("an ftp badge link should be refused")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400 and "link_url" in str(e.error_message), e.error_message
# Project badges: the project's own (kind "project") beside the group's it inherits, placeholders from this project.
own = first.badges.create({"name": "mix", "link_url": "https://ci.example.com/%{project_path}/%{default_branch}", "image_url": "https://img.example.com/%{project_id}.svg"})
assert own.kind == "project", own.kind
assert own.rendered_link_url == "https://ci.example.com/%s/main" % first.path_with_namespace, own.rendered_link_url
assert [(b.id, b.kind) for b in first.badges.list()] == [(badge.id, "group"), (own.id, "project")], [b.attributes for b in first.badges.list()]
own.image_url = "https://img.example.com/%{project_path}.svg"
own.save()
assert first.badges.get(own.id).rendered_image_url == "https://img.example.com/%s.svg" % first.path_with_namespace
assert first.badges.render("https://x.example/%{project_id}", "https://x.example/b.svg")["rendered_link_url"] == "https://x.example/%d" % first.id
first.badges.delete(own.id)
assert [b.kind for b in first.badges.list()] == ["group"]
step("project badge created, listed beside the group's, edited, previewed and deleted")
badge.delete()
assert group.badges.list() == []
step("group badge created, rendered, edited, previewed and deleted")

settings = gl.notificationsettings.get()
assert (settings.level, settings.notification_email) == ("participating", user.email), settings.attributes
settings.level = "watch"
settings.save()
assert gl.notificationsettings.get().level == "watch"
group_settings = group.notificationsettings.get()
assert group_settings.level == "global"
group_settings.level = "custom"
group_settings.new_note = True
group_settings.save()
assert group_settings.events["new_note"] is True and len(group_settings.events) == 13, group_settings.attributes
assert group.notificationsettings.get().events == group_settings.events
project_settings = p.notificationsettings.get()
assert project_settings.level == "global"
project_settings.level = "mention"
project_settings.save()
assert p.notificationsettings.get().level == "mention"
try:
    project_settings.level = "xyz"
    project_settings.save()
    raise AssertionError("an unknown level should be refused")
except gitlab.exceptions.GitlabUpdateError as e:
    assert e.response_code == 400 and "is not a valid level" in str(e.error_message), e.error_message
step("notification settings: global watch, group custom with events, project mention")

def wait_for(read, field, done=("finished", "failed")):
    """Poll a status object until `field` reaches an end state."""
    for _ in range(400):
        value = read()
        if getattr(value, field) in done:
            return value
        time.sleep(0.05)
    return value


export = p.exports.create()
export = wait_for(lambda: (export.refresh(), export)[1], "export_status")
assert export.export_status == "finished", export.attributes
assert export._links["api_url"].endswith("/projects/%d/export/download" % p.id), export._links
archive = export.download()
assert archive[:2] == b"\x1f\x8b", archive[:10]
try:
    p.exports.create({"upload": {"url": "http://127.0.0.1:9/x", "http_method": "GET"}})
    raise AssertionError("an upload with GET should be refused")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400 and "upload[http_method]" in str(e.error_message), e.error_message
step("exported %s (%d bytes)" % (p.path_with_namespace, len(archive)))

result = gl.projects.import_project(archive, path="pygit-imported", namespace=user.username, override_params={"description": "imported by python-gitlab"})
assert result["import_status"] == "scheduled" and result["path_with_namespace"] == "%s/pygit-imported" % user.username, result
imported = gl.projects.get(result["id"])
status = wait_for(lambda: imported.imports.get(), "import_status")
assert status.import_status == "finished", status.attributes
imported = gl.projects.get(result["id"])
assert imported.description == "imported by python-gitlab" and imported.issues_enabled is False and imported.visibility == "public", imported.attributes
try:
    gl.projects.import_project(archive, path="pygit-imported")
    raise AssertionError("a taken path should be refused without overwrite")
except gitlab.exceptions.GitlabImportError as e:
    assert e.response_code == 400 and e.error_message == "Path has already been taken", e.error_message
replaced = gl.projects.import_project(archive, path="pygit-imported", overwrite=True)
status = wait_for(lambda: gl.projects.get(replaced["id"], lazy=True).imports.get(), "import_status")
assert status.import_status == "finished" and status.path == "pygit-imported", status.attributes
try:
    gl.projects.get(imported.id)
    raise AssertionError("the overwritten project %d is still readable" % imported.id)
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404
gl.projects.delete(replaced["id"])
step("imported it as %s, import_status %s; overwrite=True replaced it" % (result["path_with_namespace"], status.import_status))

# The repository API: one commit of several actions (plain and base64 content), history, branches, tags.
stems = gl.projects.create({"name": "Py Stems %s" % suffix})
kick = b"RIFF\x00\xffWAVE"
commit = stems.commits.create({
    "branch": "main",
    "commit_message": "Add stems",
    "actions": [
        {"action": "create", "file_path": "README.md", "content": "# Stems\n"},
        {"action": "create", "file_path": "stems/kick.wav", "content": base64.b64encode(kick).decode(), "encoding": "base64"},
    ],
})
assert commit.title == "Add stems" and commit.parent_ids == [] and commit.author_name == "Py Producer", commit.attributes
assert [c.id for c in stems.commits.list(ref_name="main", get_all=True)] == [commit.id]
assert sorted(d["new_path"] for d in commit.diff()) == ["README.md", "stems/kick.wav"]
second = stems.commits.create({"branch": "main", "commit_message": "Rework", "actions": [
    {"action": "move", "previous_path": "stems/kick.wav", "file_path": "drums/kick.wav"},
    {"action": "update", "file_path": "README.md", "content": "# Stems v2\n"},
]})
assert second.parent_ids == [commit.id], second.attributes
assert stems.commits.get(second.id).stats == {"additions": 1, "deletions": 1, "total": 2}
try:
    stems.commits.create({"branch": "main", "commit_message": "Again", "actions": [{"action": "create", "file_path": "README.md", "content": "x"}]})
    raise AssertionError("creating an existing file should be refused")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400 and e.error_message == "A file with this name already exists", (e.response_code, e.error_message)
stems.files.create({"file_path": "notes/take 1.txt", "branch": "main", "content": "first take", "commit_message": "Notes"})
stems.files.delete(file_path="notes/take 1.txt", branch="main", commit_message="No notes")
assert [c.title for c in stems.commits.list(get_all=True)] == ["No notes", "Notes", "Rework", "Add stems"]
head = stems.commits.list(per_page=1)[0].id
branch = stems.branches.create({"branch": "mix", "ref": "main"})
assert branch.commit["id"] == head and branch.default is False
assert sorted(b.name for b in stems.branches.list(get_all=True)) == ["main", "mix"]
tag = stems.tags.create({"tag_name": "v1", "ref": "main", "message": "First cut"})
assert tag.commit["id"] == head and tag.message == "First cut", tag.attributes
assert [t.name for t in stems.tags.list(get_all=True)] == ["v1"]
compared = stems.repository_compare(commit.id, second.id)
assert [c["id"] for c in compared["commits"]] == [second.id], compared
assert [(c["name"], c["commits"]) for c in stems.repository_contributors()] == [("Py Producer", 4)]
stems.branches.delete("mix")
assert [b.name for b in stems.branches.list(get_all=True)] == ["main"]
assert sorted(x.name for x in group.projects.list(get_all=True)) == ["Batch 0", "Batch 1", "Batch 2", "PyGit Demo"]
assert [x["name"] for x in gl.search("projects", "Py Stems %s" % suffix)] == ["Py Stems %s" % suffix]
stems.delete()
step("repository API: commits with actions, files, branches, tags, compare, contributors, group projects, search")

read_only = admin.http_post("/users/%d/personal_access_tokens" % user.id, post_data={"name": "reader", "scopes": ["read_api"]})["token"]
reader = gitlab.Gitlab(url, private_token=read_only)
assert p.id in [q.id for q in reader.projects.list(owned=True, get_all=True)]
try:
    reader.projects.create({"name": "Read Only"})
    raise AssertionError("a read_api token created a project")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 403 and "insufficient_scope" in str(e.error_message), (e.response_code, e.error_message)
step("a read_api token lists projects and is refused a create (403 insufficient_scope)")

# The repository API: push files with the git CLI, then read them back through python-gitlab.
work = tempfile.mkdtemp(prefix="pygitlab-repo-")
stem = os.urandom(3 * 1024 * 1024 + 1)
files = {"README.md": b"# PyGit Demo\n", "stems/bass.raw": stem, "notes/take 1.txt": "caf\u00e9\n".encode()}
for name, data in files.items():
    os.makedirs(os.path.join(work, os.path.dirname(name)), exist_ok=True)
    with open(os.path.join(work, name), "wb") as f:
        f.write(data)
env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", HOME=work)
git = ["git", "-c", "user.name=Py", "-c", "user.email=py@example.com", "-c", "init.defaultBranch=main", "-c", "credential.helper="]
for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "stems"]):
    subprocess.run(git + args, cwd=work, env=env, check=True)
push_url = p.http_url_to_repo.replace("://", "://oauth2:%s@" % token, 1)
subprocess.run(git + ["push", "-q", push_url, "main"], cwd=work, env=env, check=True)
head = subprocess.run(git + ["rev-parse", "HEAD"], cwd=work, env=env, check=True, capture_output=True).stdout.decode().strip()
tree = p.repository_tree(recursive=True, get_all=True, per_page=2)
paths = sorted(e["path"] for e in tree if e["type"] == "blob")
assert paths == sorted(files), paths
assert [e["name"] for e in p.repository_tree(path="stems", ref="main")] == ["bass.raw"]
f = p.files.get(file_path="notes/take 1.txt", ref="main")
assert f.decode() == files["notes/take 1.txt"] and f.commit_id == head and f.last_commit_id == head, f.attributes
big = p.files.get(file_path="stems/bass.raw", ref="main")
assert big.decode() == stem and big.content_sha256 == hashlib.sha256(stem).hexdigest() and big.size == len(stem)
assert p.files.raw(file_path="stems/bass.raw", ref="main") == stem
meta = p.files.head("README.md", ref="main")
readme_blob = subprocess.run(git + ["rev-parse", "HEAD:README.md"], cwd=work, env=env, check=True, capture_output=True).stdout.decode().strip()
assert meta["X-Gitlab-Blob-Id"] == readme_blob and meta["X-Gitlab-Size"] == str(len(files["README.md"])), meta
assert p.repository_raw_blob(big.blob_id) == stem
assert base64.b64decode(p.repository_blob(f.blob_id)["content"]) == files["notes/take 1.txt"]
try:
    p.files.get(file_path="nope.txt", ref="main")
    raise AssertionError("a missing file should be 404")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404 and e.error_message == "404 File Not Found", e.error_message
prefix = "%s-main-%s" % (p.path, head)
with zipfile.ZipFile(io.BytesIO(p.repository_archive(sha="main", format="zip"))) as z:
    assert sorted(n for n in z.namelist() if not n.endswith("/")) == sorted("%s/%s" % (prefix, n) for n in files), z.namelist()
    assert z.read("%s/stems/bass.raw" % prefix) == stem
with tarfile.open(fileobj=io.BytesIO(p.repository_archive(path="stems"))) as t:
    assert [m.name for m in t.getmembers() if m.isfile()] == ["%s-stems/stems/bass.raw" % prefix], t.getnames()
assert gl.projects.get(p.id).readme_url == "%s/-/blob/main/README.md" % p.web_url
step("pushed stems; repository_tree, files.get/raw/head, blobs, repository_archive (zip, tar.gz with path), readme_url")

gl.projects.delete(fork.id)
p.delete()
for pid in (p.id, fork.id):
    try:
        gl.projects.get(pid)
        raise AssertionError("deleted project %d still readable" % pid)
    except gitlab.exceptions.GitlabGetError as e:
        assert e.response_code == 404
step("deleted the fork and the project")
print("OK")
