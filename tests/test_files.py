"""agents/files.py: the checks of output folders and files, made before any work, refuse with one
line what could not be written at the end (a file in the way, a name too long, a read-only file
system, a place where nothing can be made), and leave nothing behind."""

from __future__ import annotations

import errno
import os
import sys
import tempfile

import pytest

from agents.files import check_folder, check_writable_file

LONG = "x" * 300            # over the 255 characters most file systems allow a name


def _read_only(monkeypatch, root):
    """Make ``root`` (an existing folder) behave as on a read-only file system: no folder or file
    can be made in it, or under it."""
    real_mkdir, real_mkstemp = os.mkdir, tempfile.mkstemp

    def under(p) -> bool:
        return os.path.abspath(os.fspath(p)).startswith(os.path.abspath(root) + os.sep)

    def mkdir(p, *a, **k):
        if under(p):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(p))
        return real_mkdir(p, *a, **k)

    def mkstemp(*a, dir=None, **k):
        if dir is not None and (under(dir) or os.path.abspath(dir) == os.path.abspath(root)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(dir))
        return real_mkstemp(*a, dir=dir, **k)

    monkeypatch.setattr(os, "mkdir", mkdir)
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize("check,kind", [(check_folder, "folder"), (check_writable_file, "file")])
def test_an_output_that_cannot_be_written_is_one_line_error(tmp_path, monkeypatch, check, kind):
    """A name too long (was a raw ``OSError: [Errno 36]``), a path in a read-only folder (was
    accepted, then failed after the work), and ``/proc`` (nothing can be made there) are one
    line naming the option, the path and the system's reason."""
    for path, why in ((tmp_path / LONG, "File name too long"), (tmp_path / LONG / "sub", "File name too long")):
        with pytest.raises(ValueError) as err:
            check(path, "--out")
        assert str(err.value).startswith(f"--out {str(path)!r} cannot be ") and str(err.value).endswith(why)
        assert "\n" not in str(err.value)
    ro = tmp_path / "ro"
    ro.mkdir()
    _read_only(monkeypatch, ro)
    paths = (ro, ro / "new", ro / "new" / "deeper") if kind == "folder" else (ro / "r.json", ro / "new" / "r.json")
    for path in paths:
        with pytest.raises(ValueError, match=rf"^--out '{path}' cannot be (made|written): Read-only file system$"):
            check(path, "--out")
    if sys.platform.startswith("linux"):
        with pytest.raises(ValueError, match=r"^--out '/proc/treachery-no-such' cannot be (made|written): "):
            check("/proc/treachery-no-such", "--out")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == [ro]


def test_the_checks_make_nothing_that_stays(tmp_path):
    """A good output (folder or file, its folders missing) passes and the check leaves no folder
    and no temporary file behind: a command refused afterwards changes nothing; an existing
    folder keeps exactly what it held."""
    check_folder(tmp_path / "a" / "b" / "c", "--out")
    check_writable_file(tmp_path / "d" / "e" / "f.json", "--replay")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "kept.txt").write_text("x")
    check_folder(tmp_path, "--out")
    check_writable_file(tmp_path / "g.json", "--replay")
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


def test_a_file_in_the_way_or_an_empty_path_is_refused(tmp_path):
    """The checks that were there stay: a file where the folder would be, or above it; a folder
    where the file would be; an empty path."""
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match=r"^--out '.*f' is not a folder: '.*f' is a file$"):
        check_folder(tmp_path / "f", "--out")
    with pytest.raises(ValueError, match=r"^--out '.*f/sub' is not a folder: '.*f' is a file$"):
        check_folder(tmp_path / "f" / "sub", "--out")
    with pytest.raises(ValueError, match=r"^--replay '.*' is a folder, not a file$"):
        check_writable_file(tmp_path, "--replay")
    with pytest.raises(ValueError, match=r"cannot be written: '.*f' is a file, not a folder$"):
        check_writable_file(tmp_path / "f" / "r.json", "--replay")
    with pytest.raises(ValueError, match="^--out is empty; give a folder$"):
        check_folder(" ", "--out")
    with pytest.raises(ValueError, match="^--replay is empty; give a file$"):
        check_writable_file("", "--replay")


def test_a_folder_given_for_a_checkpoint_names_the_policy_in_it(tmp_path, monkeypatch):
    """``agents.make("policy:FOLDER")`` (a model's folder, such as an export's, where the spec takes
    its ``policy.pt``) and ``--set init=FOLDER``: one line that the path is a folder, naming the
    policy file in it when there is one; it used to say the folder "does not exist"."""
    import agents

    monkeypatch.chdir(tmp_path)
    (tmp_path / "model").mkdir()
    with pytest.raises(ValueError, match=r"^checkpoint 'model' is a folder, not a file$"):
        agents.make("policy:model")
    (tmp_path / "model" / "policy.pt").write_bytes(b"")
    with pytest.raises(ValueError, match=r"^checkpoint 'model' is a folder, not a file; the policy in it is "
                                         r"'model/policy\.pt'$"):
        agents.make("policy:model")


@pytest.mark.parametrize("hard_links", [True, False])
def test_a_new_file_or_a_move_never_replaces_a_file_made_after_the_name_was_seen_free(tmp_path, monkeypatch,
                                                                                     hard_links):
    """:func:`write_new_file` and :func:`move_to_new_name` take a name exclusively, so a file another
    process makes there between a check and the write is kept, and the data (or the file moved)
    goes to the next free name, whole; ``next_free=False`` then writes nothing.  Likewise on a
    file system without hard links (an exclusive create, then a rename over it)."""
    from conftest import taken_before_write

    from agents.files import move_to_new_name, write_new_file

    if not hard_links:
        def no_link(src, dst, *a, **k):
            raise OSError(errno.EPERM, os.strerror(errno.EPERM), src, dst)
        monkeypatch.setattr(os, "link", no_link)
    with monkeypatch.context() as m:
        taken_before_write(m, tmp_path / "r.json", b"another's")
        assert write_new_file(tmp_path / "r.json", b"mine") == tmp_path / "r-2.json"
    with monkeypatch.context() as m:
        taken_before_write(m, tmp_path / "m.json", b"another's")
        with pytest.raises(FileExistsError) as err:
            write_new_file(tmp_path / "m.json", b"mine", next_free=False)
    assert err.value.filename == str(tmp_path / "m.json")
    (tmp_path / "ckpt.pt").write_bytes(b"cut short")
    with monkeypatch.context() as m:
        taken_before_write(m, tmp_path / "ckpt.pt.corrupt", b"another's")
        assert move_to_new_name(tmp_path / "ckpt.pt", tmp_path / "ckpt.pt.corrupt") == tmp_path / "ckpt.pt-2.corrupt"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {
        "r.json": b"another's", "r-2.json": b"mine", "m.json": b"another's",
        "ckpt.pt.corrupt": b"another's", "ckpt.pt-2.corrupt": b"cut short"}
    with pytest.raises(FileNotFoundError):          # nothing to move: the system's error, naming the file
        move_to_new_name(tmp_path / "ckpt.pt", tmp_path / "x")
    assert not (tmp_path / "x").exists()
